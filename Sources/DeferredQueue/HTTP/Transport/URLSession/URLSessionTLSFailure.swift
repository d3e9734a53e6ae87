import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A TLS failure of URLSession on Linux, recognised from libcurl's message.
///
/// swift-corelibs-foundation maps only a few of libcurl's result codes to
/// `URLError` codes: every TLS failure (an untrusted, expired or misnamed
/// certificate, a failed handshake) arrives as `URLError.unknown`, and the
/// `CURLcode` itself is dropped. What survives is libcurl's error text in
/// `NSLocalizedDescriptionKey`; with the OpenSSL backend (Debian's and
/// Ubuntu's libcurl) it carries OpenSSL's verification result, e.g.
/// "SSL certificate problem: certificate has expired". This type reads that
/// text, so the failure gets the `URLError` code Apple's URLSession gives.
///
/// libcurl verifies the chain before the host name, and stops at the first
/// problem: a certificate that is both untrusted and expired is reported as
/// untrusted. libcurl trusts only the system store here, so a private CA is
/// always an unknown root on this transport.
struct URLSessionTLSFailure: Equatable {
    /// `NSURLErrorFailingURLStringErrorKey`'s value: swift-corelibs-foundation
    /// deprecates the name, yet fills the key (and Apple's URLSession does).
    static let failingURLStringKey = "NSErrorFailingURLStringKey"

    /// The `URLError` code for the failure.
    let code: URLError.Code
    /// Why, in words, for the error's description.
    let reason: String

    /// The failure `message` (libcurl's error text) describes, or `nil` when
    /// it is not a TLS failure.
    init?(libcurlMessage message: String) {
        let text = message.lowercased()
        if let problem = text.range(of: "ssl certificate problem: ").map({ String(text[$0.upperBound...]) }) {
            // OpenSSL's X509_verify_cert_error_string() wording (1.1 writes "self signed").
            let selfSigned = problem.contains("self-signed") || problem.contains("self signed")
            if problem.contains("expired") {
                self.init(.serverCertificateHasBadDate, "the server's certificate has expired")
            } else if problem.contains("not yet valid") {
                self.init(.serverCertificateNotYetValid, "the server's certificate is not yet valid")
            } else if selfSigned && !problem.contains("in certificate chain") {
                self.init(.serverCertificateUntrusted, "the server's certificate is self-signed, and not trusted")
            } else if selfSigned || problem.contains("issuer") || problem.contains("verify the first certificate") {
                self.init(
                    .serverCertificateHasUnknownRoot,
                    "the server's certificate was issued by a certificate authority that is not trusted "
                        + "(URLSession on Linux trusts only the system's certificate store)"
                )
            } else {
                self.init(.serverCertificateUntrusted, "the server's certificate could not be verified")
            }
        } else if text.contains("target host name") || text.contains("does not match target host") {
            // "SSL: no alternative certificate subject name matches target host name '…'"
            // "SSL: certificate subject name '…' does not match target host name '…'"
            self.init(.serverCertificateUntrusted, "the server's certificate is not valid for this host name")
        } else if text.contains("server certificate verification failed") || text.contains("peer certificate") {
            // GnuTLS's wording, and libcurl's generic CURLE_PEER_FAILED_VERIFICATION text.
            self.init(.serverCertificateUntrusted, "the server's certificate could not be verified")
        } else if !text.contains("unexpected eof"),
            text.contains("ssl routines") || text.contains("ssl_connect") || text.contains("ssl connect error")
                || text.contains("tls connect error") || text.contains("gnutls_handshake")
                || text.contains("unknown ssl protocol error")
        {
            self.init(
                .secureConnectionFailed,
                "the TLS handshake failed (no common protocol version or cipher, or the server does not speak TLS)"
            )
        } else {
            return nil
        }
    }

    private init(_ code: URLError.Code, _ reason: String) {
        (self.code, self.reason) = (code, reason)
    }

    /// `error` (corelibs' `URLError.unknown`) as this failure's `URLError`:
    /// the failing URL under both of Foundation's keys, a description that
    /// says it is a TLS failure and why, and `error` as the underlying error.
    func urlError(replacing error: URLError, url: URL?) -> URLError {
        var userInfo = error.userInfo
        let url = url ?? error.failingURL
        if let url {
            userInfo[NSURLErrorFailingURLErrorKey] = url
            userInfo[Self.failingURLStringKey] = url.absoluteString
        }
        let host = url?.host.map { " with \($0)" } ?? ""
        let detail = (error.userInfo[NSLocalizedDescriptionKey] as? String).map { " (libcurl: \($0))" } ?? ""
        userInfo[NSLocalizedDescriptionKey] = "TLS failure\(host): \(reason)\(detail)."
        userInfo[NSUnderlyingErrorKey] = error
        return URLError(code, userInfo: userInfo)
    }
}
