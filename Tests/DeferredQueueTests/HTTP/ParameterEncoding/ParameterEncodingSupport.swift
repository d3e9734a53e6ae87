import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request to `url` with `method`, for encoder tests.
func encodingTestRequest(_ url: String = "https://example.com/get", method: String = "GET") -> URLRequest {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method
    return request
}

/// The reason of the `parameterEncodingFailed` error `body` throws, or `nil` when it throws
/// anything else or nothing.
func parameterEncodingFailure(_ body: () throws -> URLRequest) -> HTTPError.ParameterEncodingFailureReason? {
    do {
        _ = try body()
        return nil
    } catch HTTPError.parameterEncodingFailed(let reason) {
        return reason
    } catch {
        return nil
    }
}

extension URLRequest {
    /// The body as UTF-8 text.
    var bodyAsText: String? {
        httpBody.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The URL's query as sent (percent-encoded).
    var queryAsSent: String? {
        url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.percentEncodedQuery }
    }
}
