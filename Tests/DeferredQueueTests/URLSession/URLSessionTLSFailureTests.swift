import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

/// URLSession on Linux reports every TLS failure as `URLError.unknown` with
/// libcurl's message; the transport turns the message into Apple's code.
/// The messages below are libcurl 7.88's with OpenSSL 3.0 (Debian 12), as
/// seen against real servers; the cases against a live TLS server (and one
/// that does not speak TLS) run in the AsyncHTTPClient package's TLS suite,
/// on both transports.
@Suite("URLSessionTransport: TLS failures get Apple's URLError codes")
struct URLSessionTLSFailureTests {
    @Test(arguments: [
        ("SSL certificate problem: self-signed certificate", URLError.Code.serverCertificateUntrusted),
        ("SSL certificate problem: self signed certificate", .serverCertificateUntrusted),
        ("SSL certificate problem: unable to get local issuer certificate", .serverCertificateHasUnknownRoot),
        ("SSL certificate problem: self-signed certificate in certificate chain", .serverCertificateHasUnknownRoot),
        ("SSL certificate problem: unable to verify the first certificate", .serverCertificateHasUnknownRoot),
        ("SSL certificate problem: certificate has expired", .serverCertificateHasBadDate),
        ("SSL certificate problem: certificate is not yet valid", .serverCertificateNotYetValid),
        ("SSL certificate problem: certificate signature failure", .serverCertificateUntrusted),
        ("SSL: no alternative certificate subject name matches target host name 'example.test'", .serverCertificateUntrusted),
        ("SSL: certificate subject name 'other.test' does not match target host name 'example.test'", .serverCertificateUntrusted),
        ("OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number", .secureConnectionFailed),
        ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:443 ", .secureConnectionFailed),
    ])
    func libcurlsCertificateMessagesMapToApplesCodes(message: String, code: URLError.Code) {
        #expect(URLSessionTLSFailure(libcurlMessage: message)?.code == code)
    }

    @Test(arguments: [
        "transfer closed with 5 bytes remaining to read",
        "Failed to connect to 127.0.0.1 port 1: Couldn't connect to server",
        "OpenSSL/3.0.19: error:0A000126:SSL routines::unexpected eof while reading",
        "",
    ])
    func otherMessagesAreNotTLSFailures(message: String) {
        #expect(URLSessionTLSFailure(libcurlMessage: message) == nil)
    }

    @Test func theTLSErrorNamesTheURLTheHostAndLibcurlsReason() throws {
        let url = try #require(URL(string: "https://example.test:8443/path"))
        let original = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "SSL certificate problem: certificate has expired"])
        let failure = try #require(URLSessionTLSFailure(libcurlMessage: "SSL certificate problem: certificate has expired"))
        let error = failure.urlError(replacing: original, url: url)
        #expect(error.code == .serverCertificateHasBadDate)
        #expect(error.failingURL == url)
        #expect(error.userInfo["NSErrorFailingURLStringKey"] as? String == url.absoluteString)
        #expect(error.localizedDescription.contains("TLS failure with example.test"))
        #expect(error.localizedDescription.contains("certificate has expired"))
        #expect((error.userInfo[NSUnderlyingErrorKey] as? URLError)?.code == .unknown)
        let description = HTTPError.sessionTaskFailed(error).description
        #expect(description.contains("TLS certificate failure"), "\(description)")
        #expect(description.contains("expired"), "\(description)")
    }
}
