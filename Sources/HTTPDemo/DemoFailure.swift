import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failure the demo reports with one line on stderr and its own exit code.
///
/// The messages are the demo's own, written for the person running it: the
/// library's error descriptions are addressed to developers (they name
/// methods and types to change), so none is passed through.
struct DemoFailure: Error {
    let exitCode: Int32
    let message: String

    /// The exit codes, stable: scripts depend on them (listed in `--help`).
    enum Code {
        static let usage: Int32 = 2
        static let invalidURL: Int32 = 3
        static let unreachable: Int32 = 4
        static let timedOut: Int32 = 5
        static let httpStatus: Int32 = 6
        static let notJSON: Int32 = 7
        static let network: Int32 = 8
        static let notAnEntry: Int32 = 9
    }

    static func usage(_ message: String) -> DemoFailure {
        DemoFailure(exitCode: Code.usage, message: "\(message)\nRun 'HTTPDemo --help' for usage.")
    }

    static func invalidURL(_ what: String, _ url: String) -> DemoFailure {
        DemoFailure(exitCode: Code.invalidURL, message: "invalid \(what) '\(url)': it must be an http(s) URL with a host")
    }

    static func notJSON(_ url: String, _ error: JSON.ParseError) -> DemoFailure {
        DemoFailure(exitCode: Code.notJSON, message: "the response from \(shown(url)) is not a valid entry: it is not JSON (\(error))")
    }

    static func notAnEntry(_ url: String, _ problem: String) -> DemoFailure {
        DemoFailure(
            exitCode: Code.notAnEntry,
            message: "the response from \(shown(url)) is JSON but not a Hatena Bookmark entry: \(problem); check --endpoint"
        )
    }

    /// `url` as a message shows it: its password, or userinfo without one
    /// (usually a token), reads `***`.
    static func shown(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.user != nil || components.password != nil else { return url }
        if components.password != nil {
            components.percentEncodedPassword = "***"
        } else {
            components.percentEncodedUser = "***"
        }
        return components.string ?? url
    }

    /// Classifies a request failure.
    init(_ error: HTTPError, url requested: String) {
        let url = Self.shown(requested)
        switch error {
        case .invalidURL(let invalid) where invalid != requested:
            self.init(exitCode: Code.network, message: "\(url) redirects to an invalid URL '\(Self.shown(invalid))'")
        case .invalidURL:
            self = .invalidURL("URL", url)
        case .sessionTaskFailed(let urlError):
            self = Self.transport(urlError.code, url: url)
        case .responseValidationFailed:
            let status = error.responseCode.map { "HTTP \($0) (\(HTTPURLResponse.localizedString(forStatusCode: $0)))" }
            self.init(exitCode: Code.httpStatus, message: "the server answered \(status ?? "with an unacceptable response") for \(url)")
        case .responseSerializationFailed:
            self.init(exitCode: Code.notAnEntry, message: "the response from \(url) is not a Hatena Bookmark entry")
        case .responseTooLarge(let limit):
            self.init(exitCode: Code.network, message: "the response from \(url) is too large (over \(limit >> 20) MiB)")
        default:
            self.init(exitCode: Code.network, message: "the request for \(url) did not complete")
        }
    }

    private static func transport(_ code: URLError.Code, url: String) -> DemoFailure {
        switch code {
        case .timedOut:
            return DemoFailure(exitCode: Code.timedOut, message: "timed out waiting for \(url)")
        case .cannotConnectToHost:
            return DemoFailure(exitCode: Code.unreachable, message: "cannot reach \(url): the connection was refused")
        case .cannotFindHost, .dnsLookupFailed:
            return DemoFailure(exitCode: Code.unreachable, message: "cannot reach \(url): the host name was not found")
        case .notConnectedToInternet:
            return DemoFailure(exitCode: Code.unreachable, message: "cannot reach \(url): not connected to a network")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return DemoFailure(exitCode: Code.network, message: "no secure connection to \(url): the server's certificate was not accepted")
        case .networkConnectionLost:
            return DemoFailure(exitCode: Code.network, message: "the connection to \(url) was lost before the response was complete")
        case .badServerResponse, .cannotParseResponse:
            return DemoFailure(exitCode: Code.network, message: "the server at \(url) answered with a malformed response")
        case .cannotDecodeContentData, .cannotDecodeRawData:
            return DemoFailure(exitCode: Code.network, message: "the response from \(url) has a body that cannot be decoded (its Content-Encoding)")
        case .httpTooManyRedirects, .redirectToNonExistentLocation:
            return DemoFailure(exitCode: Code.network, message: "\(url) redirects too often or to nowhere")
        default:
            return DemoFailure(exitCode: Code.network, message: "network failure for \(url) (error \(code.rawValue))")
        }
    }

    init(exitCode: Int32, message: String) {
        self.exitCode = exitCode
        self.message = message
    }
}
