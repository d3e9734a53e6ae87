import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOSSL

/// A TLS failure of SwiftNIO SSL, as the `URLError` code Apple's URLSession
/// gives for it, with the reason in words.
///
/// BoringSSL reports a chain it could not verify as `CERTIFICATE_VERIFY_FAILED`
/// and keeps the verification result (expired, unknown issuer, self-signed)
/// to itself; swift-nio-ssl exposes neither it nor the peer's certificates
/// once the handshake failed. ``CertificateDiagnosis`` therefore looks at
/// the certificates again (see ``AsyncHTTPClientTransport``, "Errors").
/// A host name that does not match the certificate is found after a verified
/// handshake, and reported on its own (`NIOSSLExtraError.failedToValidateHostname`).
struct TLSFailure: Equatable {
    /// `NSURLErrorFailingURLStringErrorKey`'s value: swift-corelibs-foundation
    /// deprecates the name, yet fills the key (and Apple's URLSession does).
    static let failingURLStringKey = "NSErrorFailingURLStringKey"

    let code: URLError.Code
    let reason: String

    /// The failure `error` is, or `nil` when it is not a TLS failure.
    init?(_ error: any Error) {
        switch error {
        case let error as NIOSSLExtraError:
            if error == .failedToValidateHostname || error == .serverHostnameImpossibleToMatch {
                self.init(.serverCertificateUntrusted, "the server's certificate is not valid for this host name")
            } else {
                self.init(.secureConnectionFailed, "the TLS connection failed")
            }
        case let error as NIOSSLError:
            switch error {
            case .handshakeFailed(let error): self.init(boringSSL: error)
            case .noCertificateToValidate, .unableToValidateCertificate, .cannotMatchULabel, .cannotFindPeerIP:
                self.init(.serverCertificateUntrusted, "the server's certificate could not be verified")
            default:
                self.init(.secureConnectionFailed, "the TLS connection failed")
            }
        case let error as BoringSSLError:
            self.init(boringSSL: error)
        default:
            return nil
        }
    }

    init(_ code: URLError.Code, _ reason: String) {
        (self.code, self.reason) = (code, reason)
    }

    /// A failure of BoringSSL itself, from the reason names in its error stack.
    private init(boringSSL error: BoringSSLError) {
        let names: String
        switch error {
        case .sslError(let stack), .unknownError(let stack): names = stack.map(\.description).joined(separator: "; ")
        default: names = "\(error)"
        }
        let text = names.uppercased()
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            self.init(.serverCertificateUntrusted, Self.unverifiedChain)
        } else if text.contains("CERTIFICATE_REQUIRED") {
            self.init(.clientCertificateRequired, "the server requires a client certificate")
        } else if text.contains("ALERT_BAD_CERTIFICATE") || text.contains("ALERT_UNKNOWN_CA")
            || text.contains("ALERT_CERTIFICATE_UNKNOWN") || text.contains("ALERT_CERTIFICATE_EXPIRED")
            || text.contains("ALERT_UNSUPPORTED_CERTIFICATE") || text.contains("ALERT_CERTIFICATE_REVOKED")
        {
            // A server sends these about the client's certificate.
            self.init(.clientCertificateRejected, "the server rejected the client certificate")
        } else {
            self.init(
                .secureConnectionFailed,
                "the TLS handshake failed (no common protocol version or cipher, or the server does not speak TLS)"
            )
        }
    }

    /// The reason for a chain BoringSSL did not verify, before a diagnosis.
    static let unverifiedChain = "the server's certificate chain could not be verified"

    /// Whether this failure is a chain BoringSSL did not verify (for which
    /// ``CertificateDiagnosis`` can find the finer reason).
    var isUnverifiedChain: Bool { code == .serverCertificateUntrusted && reason == Self.unverifiedChain }

    /// This failure as a `URLError`: the failing URL under both of
    /// Foundation's keys, a description that says it is a TLS failure and
    /// why, and `error` (SwiftNIO SSL's) as the underlying error.
    func urlError(underlying error: any Error, url: URL?) -> URLError {
        var userInfo: [String: Any] = [NSUnderlyingErrorKey: error]
        if let url {
            userInfo[NSURLErrorFailingURLErrorKey] = url
            userInfo[Self.failingURLStringKey] = url.absoluteString
        }
        let host = url?.host.map { " with \($0)" } ?? ""
        userInfo[NSLocalizedDescriptionKey] = "TLS failure\(host): \(reason) (\(error))."
        return URLError(code, userInfo: userInfo)
    }

    /// `error` (a TLS failure made by ``urlError(underlying:url:)``) with
    /// this failure's code and reason instead.
    func refining(_ error: URLError) -> URLError {
        urlError(underlying: error.userInfo[NSUnderlyingErrorKey] as? any Error ?? error, url: error.failingURL)
    }
}
