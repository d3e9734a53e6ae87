import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failure the demo reports with one line on stderr and its own exit code.
struct DemoFailure: Error {
    let exitCode: Int32
    let message: String

    static func usage(_ message: String) -> DemoFailure {
        DemoFailure(exitCode: 2, message: "\(message)\nRun 'HTTPDemo --help' for usage.")
    }

    static func invalidURL(_ what: String, _ url: String) -> DemoFailure {
        DemoFailure(exitCode: 3, message: "invalid \(what) '\(url)': it must be an http(s) URL with a host")
    }

    /// Classifies a request failure.
    init(_ error: HTTPError, url: String) {
        switch error {
        case .invalidURL:
            self = .invalidURL("URL", url)
        case .sessionTaskFailed(let urlError):
            switch urlError.code {
            case .timedOut:
                self.init(exitCode: 5, message: "timed out waiting for \(url)")
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
                self.init(exitCode: 4, message: "cannot reach \(url): \(urlError.localizedDescription) (\(urlError.code.rawValue))")
            default:
                self.init(exitCode: 8, message: "network failure for \(url): \(urlError.localizedDescription) (\(urlError.code.rawValue))")
            }
        case .responseValidationFailed:
            let status = error.responseCode.map { "HTTP \($0)" } ?? "an unacceptable response"
            self.init(exitCode: 6, message: "the server answered \(status) for \(url)")
        case .responseSerializationFailed(let reason):
            self.init(exitCode: 7, message: "the response from \(url) is not a valid entry: \(reason)")
        case .cancelled, .abandoned, .parameterEncodingFailed:
            self.init(exitCode: 8, message: "the request for \(url) did not complete: \(error)")
        }
    }

    init(exitCode: Int32, message: String) {
        self.exitCode = exitCode
        self.message = message
    }
}
