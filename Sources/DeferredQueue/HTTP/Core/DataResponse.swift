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
public struct DataResponse<Success: Sendable, Failure: Error>: Sendable {
    /// When the request started and finished.
    public typealias Timing = ResponseTiming

    /// The request as sent (after the session applied its defaults), if one was built.
    public let request: URLRequest?
    /// The server's response, or `nil` when none arrived (e.g. no connection, cancelled).
    ///
    /// Made from the head the transport received when first read.
    public var response: HTTPURLResponse? { head?.response }
    /// The response head.
    let head: ResponseHead?
    /// The body bytes received, or `nil` when none arrived.
    public let data: Data?
    /// The serialized value, or the error that prevented it.
    public let result: Result<Success, Failure>
    /// When the request started and finished.
    public let timing: Timing
    /// How long the serializer took to make `result`, in seconds (0 for a
    /// response made without one).
    public let serializationDuration: TimeInterval

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - request: The request sent.
    ///   - response: The server's response.
    ///   - data: The body bytes.
    ///   - result: The serialized value or the error.
    ///   - timing: When it started and finished.
    ///   - serializationDuration: How long serialization took, in seconds.
    public init(
        request: URLRequest?, response: HTTPURLResponse?, data: Data?, result: Result<Success, Failure>, timing: Timing,
        serializationDuration: TimeInterval = 0
    ) {
        self.init(
            request: request, head: response.map(ResponseHead.init), data: data, result: result, timing: timing,
            serializationDuration: serializationDuration
        )
    }

    init(
        request: URLRequest?, head: ResponseHead?, data: Data?, result: Result<Success, Failure>, timing: Timing,
        serializationDuration: TimeInterval = 0
    ) {
        self.request = request
        self.head = head
        self.data = data
        self.result = result
        self.timing = timing
        self.serializationDuration = serializationDuration
    }

    /// The value on success, otherwise `nil`.
    @inlinable  // Read in most handlers: specialised there, no generic metadata look-up.
    public var value: Success? {
        guard case .success(let value) = result else { return nil }
        return value
    }

    /// The error on failure, otherwise `nil`.
    @inlinable
    public var error: Failure? {
        guard case .failure(let error) = result else { return nil }
        return error
    }

    /// The same response with its success value transformed; failures pass through.
    ///
    /// - Parameter transform: Turns the value into another.
    /// - Returns: A response with the transformed result and the same request, response,
    ///   data and timing.
    public func map<NewSuccess: Sendable>(_ transform: (Success) -> NewSuccess) -> DataResponse<NewSuccess, Failure> {
        with(result.map(transform))
    }

    /// The same response with its success value transformed by a step that can fail;
    /// failures pass through.
    ///
    /// - Parameter transform: Turns the value into another value or a failure.
    /// - Returns: A response with the new result and the same request, response, data and
    ///   timing.
    public func flatMap<NewSuccess: Sendable>(_ transform: (Success) -> Result<NewSuccess, Failure>) -> DataResponse<NewSuccess, Failure> {
        with(result.flatMap(transform))
    }

    /// The same response with its success value transformed by a step that
    /// can throw; failures pass through, and the failure becomes `any Error`
    /// (as Alamofire's).
    ///
    /// - Parameter transform: Turns the value into another, or throws.
    /// - Returns: A response with the new result.
    public func tryMap<NewSuccess: Sendable>(_ transform: (Success) throws -> NewSuccess) -> DataResponse<NewSuccess, any Error> {
        with(result.mapError { $0 as any Error }.flatMap { value in Result { try transform(value) } })
    }

    /// The same response with its error transformed; successes pass through.
    ///
    /// - Parameter transform: Turns the error into another.
    /// - Returns: A response with the new result.
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> DataResponse<Success, NewFailure> {
        with(result.mapError(transform))
    }

    /// The same response with its error transformed by a step that can
    /// throw; successes pass through, and the failure becomes `any Error`:
    /// the returned one, or the thrown one (as Alamofire's).
    ///
    /// - Parameter transform: Turns the error into another, or throws.
    /// - Returns: A response with the new result.
    public func tryMapError<NewFailure: Error>(_ transform: (Failure) throws -> NewFailure) -> DataResponse<Success, any Error> {
        with(result.flatMapError { error in Result<Success, any Error> { throw try transform(error) } })
    }

    /// The same response with another result.
    private func with<NewSuccess: Sendable, NewFailure: Error>(
        _ result: Result<NewSuccess, NewFailure>
    ) -> DataResponse<NewSuccess, NewFailure> {
        DataResponse<NewSuccess, NewFailure>(
            request: request, head: head, data: data, result: result, timing: timing, serializationDuration: serializationDuration
        )
    }
}

/// Alamofire's name for a data response that fails with the library's error.
public typealias AFDataResponse<Success: Sendable> = DataResponse<Success, HTTPError>

extension DataResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// One line: method, URL, status, body size, duration and outcome, e.g.
    /// `GET https://example.com/ -> 200, 1532 bytes, 0.120s: success`.
    ///
    /// A password in the URL reads `***` (see <doc:Security>).
    public var description: String {
        ResponseSummary.line(
            request: request, response: head, detail: data.map { "\($0.count) bytes" }, timing: timing, error: error
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
            request: request, response: head,
            extra: ["[Data]: " + (data.map { "\($0.count) bytes" } ?? "None"), "[Timing]: \(timing)"], error: error
        )
    }
}
