import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything known about one finished download: what was sent, what came
/// back, where the file is, the serialized result and when it happened.
public struct DownloadResponse<Success: Sendable, Failure: Error>: Sendable {
    /// The request as last sent, if one was built.
    public let request: URLRequest?
    /// The server's response, or `nil` when none arrived.
    ///
    /// Made from the head the transport received when first read.
    public var response: HTTPURLResponse? { head?.response }
    /// The response head.
    let head: ResponseHead?
    /// Where the body is, once moved to its destination; `nil` on failure.
    public let fileURL: URL?
    /// What to resume a failed or cancelled download from (``DownloadRequest/resumeData``).
    public let resumeData: Data?
    /// The serialized value, or the error that prevented it.
    public let result: Result<Success, Failure>
    /// When the request started and finished.
    public let timing: ResponseTiming
    /// How long the serializer took to make `result`, in seconds (0 for a
    /// response made without one).
    public let serializationDuration: TimeInterval

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - request: The request sent.
    ///   - response: The server's response.
    ///   - fileURL: Where the body is.
    ///   - resumeData: Data to resume the download with.
    ///   - result: The serialized value or the error.
    ///   - timing: When it started and finished.
    ///   - serializationDuration: How long serialization took, in seconds.
    public init(
        request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, resumeData: Data?,
        result: Result<Success, Failure>, timing: ResponseTiming, serializationDuration: TimeInterval = 0
    ) {
        self.init(
            request: request, head: response.map(ResponseHead.init), fileURL: fileURL, resumeData: resumeData,
            result: result, timing: timing, serializationDuration: serializationDuration
        )
    }

    init(
        request: URLRequest?, head: ResponseHead?, fileURL: URL?, resumeData: Data?,
        result: Result<Success, Failure>, timing: ResponseTiming, serializationDuration: TimeInterval = 0
    ) {
        self.request = request
        self.head = head
        self.fileURL = fileURL
        self.resumeData = resumeData
        self.result = result
        self.timing = timing
        self.serializationDuration = serializationDuration
    }

    /// The same response with its success value transformed; failures pass through.
    ///
    /// - Parameter transform: Turns the value into another.
    /// - Returns: A response with the transformed result and the same request,
    ///   response, file and timing.
    public func map<NewSuccess: Sendable>(_ transform: (Success) -> NewSuccess) -> DownloadResponse<NewSuccess, Failure> {
        with(result.map(transform))
    }

    /// The same response with its success value transformed by a step that can
    /// throw, as ``DataResponse/tryMap(_:)`` does: the failure becomes `any Error`.
    ///
    /// - Parameter transform: Turns the value into another, or throws.
    /// - Returns: A response with the new result.
    public func tryMap<NewSuccess: Sendable>(_ transform: (Success) throws -> NewSuccess) -> DownloadResponse<NewSuccess, any Error> {
        with(result.mapError { $0 as any Error }.flatMap { value in Result { try transform(value) } })
    }

    /// The same response with its error transformed; successes pass through.
    ///
    /// - Parameter transform: Turns the error into another.
    /// - Returns: A response with the new result.
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> DownloadResponse<Success, NewFailure> {
        with(result.mapError(transform))
    }

    /// The same response with its error transformed by a step that can
    /// throw, as ``DataResponse/tryMapError(_:)`` does: the failure becomes `any Error`.
    ///
    /// - Parameter transform: Turns the error into another, or throws.
    /// - Returns: A response with the new result.
    public func tryMapError<NewFailure: Error>(_ transform: (Failure) throws -> NewFailure) -> DownloadResponse<Success, any Error> {
        with(result.flatMapError { error in Result<Success, any Error> { throw try transform(error) } })
    }

    private func with<NewSuccess: Sendable, NewFailure: Error>(
        _ result: Result<NewSuccess, NewFailure>
    ) -> DownloadResponse<NewSuccess, NewFailure> {
        DownloadResponse<NewSuccess, NewFailure>(
            request: request, head: head, fileURL: fileURL, resumeData: resumeData, result: result, timing: timing,
            serializationDuration: serializationDuration
        )
    }

    /// The value on success, otherwise `nil`.
    public var value: Success? {
        guard case .success(let value) = result else { return nil }
        return value
    }

    /// The error on failure, otherwise `nil`.
    public var error: Failure? {
        guard case .failure(let error) = result else { return nil }
        return error
    }
}

/// Alamofire's name for a download response that fails with the library's error.
public typealias AFDownloadResponse<Success: Sendable> = DownloadResponse<Success, HTTPError>

extension DownloadResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// One line: method, URL, status, file, duration and outcome, e.g.
    /// `GET https://example.com/a.zip -> 200, file /tmp/a.zip, 0.120s: success`.
    ///
    /// A password in the URL reads `***` (see <doc:Security>).
    public var description: String {
        ResponseSummary.line(
            request: request, response: head, detail: fileURL.map { "file \($0.path)" }, timing: timing, error: error
        )
    }

    /// The request line and headers, the response's status and headers, the
    /// file, duration and outcome, one item per line, with the same secrets
    /// hidden as in ``DataResponse/debugDescription``.
    public var debugDescription: String {
        ResponseSummary.debugText(
            request: request, response: head,
            extra: ["[File URL]: " + (fileURL?.path ?? "None"), "[Timing]: \(timing)"], error: error
        )
    }
}
