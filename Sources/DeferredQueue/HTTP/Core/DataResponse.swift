import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything known about one finished request: what was sent, what came back, the
/// serialized result and when it happened.
///
/// Completion handlers such as `responseJSON` receive one of these.
///
/// ```swift
/// request("https://example.com/entry.json").responseJSON { response in
///     switch response.result {
///     case .success(let json): print(json["title"].string ?? "untitled")
///     case .failure(let error): print(error)
///     }
///     print(response.response?.statusCode ?? 0, response.timing.duration)
/// }
/// ```
public struct DataResponse<Value: Sendable>: Sendable {
    /// When the request started and finished.
    public typealias Timing = ResponseTiming

    /// The request as sent (after the session applied its defaults), if one was built.
    public let request: URLRequest?
    /// The server's response, or `nil` when none arrived (e.g. no connection, cancelled).
    public let response: HTTPURLResponse?
    /// The body bytes received, or `nil` when none arrived.
    public let data: Data?
    /// The serialized value, or the error that prevented it.
    public let result: Result<Value, HTTPError>
    /// When the request started and finished.
    public let timing: Timing

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - request: The request sent.
    ///   - response: The server's response.
    ///   - data: The body bytes.
    ///   - result: The serialized value or the error.
    ///   - timing: When it started and finished.
    public init(request: URLRequest?, response: HTTPURLResponse?, data: Data?, result: Result<Value, HTTPError>, timing: Timing) {
        self.request = request
        self.response = response
        self.data = data
        self.result = result
        self.timing = timing
    }

    /// The value on success, otherwise `nil`.
    @inlinable  // Read in most handlers: specialised there, no generic metadata look-up.
    public var value: Value? {
        try? result.get()
    }

    /// The error on failure, otherwise `nil`.
    @inlinable
    public var error: HTTPError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }

    /// The same response with its success value transformed; failures pass through.
    ///
    /// - Parameter transform: Turns the value into another.
    /// - Returns: A response with the transformed result and the same request, response,
    ///   data and timing.
    public func map<NewValue: Sendable>(_ transform: (Value) -> NewValue) -> DataResponse<NewValue> {
        DataResponse<NewValue>(request: request, response: response, data: data, result: result.map(transform), timing: timing)
    }

    /// The same response with its success value transformed by a step that can fail;
    /// failures pass through.
    ///
    /// - Parameter transform: Turns the value into another value or an ``HTTPError``.
    /// - Returns: A response with the new result and the same request, response, data and
    ///   timing.
    public func flatMap<NewValue: Sendable>(_ transform: (Value) -> Result<NewValue, HTTPError>) -> DataResponse<NewValue> {
        DataResponse<NewValue>(request: request, response: response, data: data, result: result.flatMap(transform), timing: timing)
    }

    /// The same response with its error transformed; successes pass through.
    ///
    /// - Parameter transform: Turns the error into another.
    /// - Returns: A response with the new result.
    public func mapError(_ transform: (HTTPError) -> HTTPError) -> DataResponse<Value> {
        DataResponse(request: request, response: response, data: data, result: result.mapError(transform), timing: timing)
    }

    /// The same response with its success value transformed by a step that
    /// can throw; failures pass through. A thrown ``HTTPError`` is the new
    /// failure as it is; any other error becomes
    /// ``HTTPError/SerializationFailureReason/customSerializationFailed(error:)``
    /// (Alamofire's `tryMap` widens the failure to `any Error` instead).
    ///
    /// - Parameter transform: Turns the value into another, or throws.
    /// - Returns: A response with the new result.
    public func tryMap<NewValue: Sendable>(_ transform: (Value) throws -> NewValue) -> DataResponse<NewValue> {
        flatMap { value in Result { try transform(value) }.mapError(HTTPError.init(serializationStep:)) }
    }

    /// The same response with its error transformed by a step that can
    /// throw; successes pass through. The failure stays an ``HTTPError``: the
    /// returned one, a thrown one as it is, any other thrown error as
    /// ``HTTPError/SerializationFailureReason/customSerializationFailed(error:)``.
    ///
    /// - Parameter transform: Turns the error into another, or throws.
    /// - Returns: A response with the new result.
    public func tryMapError(_ transform: (HTTPError) throws -> HTTPError) -> DataResponse<Value> {
        mapError { Self.thrownError(transform, $0) }
    }

    /// What `transform` returns or throws for `error`, as an ``HTTPError``.
    static func thrownError(_ transform: (HTTPError) throws -> HTTPError, _ error: HTTPError) -> HTTPError {
        do {
            return try transform(error)
        } catch {
            return HTTPError(serializationStep: error)
        }
    }
}

extension DataResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// One line: method, URL, status, body size, duration and outcome, e.g.
    /// `GET https://example.com/ -> 200, 1532 bytes, 0.120s: success`.
    ///
    /// A password in the URL reads `***` (see <doc:Security>).
    public var description: String {
        ResponseSummary.line(
            request: request, response: response, detail: data.map { "\($0.count) bytes" }, timing: timing, error: error
        )
    }

    /// The request line and headers, the response's status and headers, the
    /// body size, duration and outcome, one item per line.
    ///
    /// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
    /// values and a URL's password read `***`; bodies are left out (a token
    /// response is a body). ``Request/cURLDescription()`` reproduces the
    /// request with its secrets.
    public var debugDescription: String {
        ResponseSummary.debugText(
            request: request, response: response,
            extra: ["[Data]: " + (data.map { "\($0.count) bytes" } ?? "None"), "[Timing]: \(timing)"], error: error
        )
    }
}
