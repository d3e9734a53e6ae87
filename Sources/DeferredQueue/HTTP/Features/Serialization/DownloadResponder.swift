import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a download's handler receives: `serializer`'s value (or failure)
/// in a ``DownloadResponse``, with the request, head, file, resume data and
/// timing.
struct DownloadResponder<Serializer: DownloadResponseSerializerProtocol>: OutcomeResponder {
    let serializer: Serializer
    /// `Request.start`, kept here: the handler holds the request weakly.
    let start: Date
    /// The session's monitors, told of each response built.
    let monitor: CompositeEventMonitor?

    func response(to raw: RawResponse, settled: Bool, of request: Request?) -> DownloadResponse<Serializer.SerializedObject, HTTPError> {
        let download = request as? DownloadRequest
        let began = DispatchTime.now()
        let result = settled ? serializer.result(forDownload: raw) : .failure(raw.error ?? .abandoned)
        let response = DownloadResponse(
            request: raw.request, head: raw.head, fileURL: raw.fileURL, resumeData: raw.resumeData ?? download?.resumeData,
            result: result, timing: ResponseTiming(start: start, end: raw.end), serializationDuration: began.secondsElapsed
        )
        if let monitor, let download { monitor.request(download, didParseResponse: response) }
        return response
    }
}

/// The file's URL (`nil` when there is none), or the failure: what
/// `response(queue:completionHandler:)` delivers, unserialized.
struct RawFileURLSerializer: DownloadResponseSerializerProtocol {
    func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: HTTPError?) throws -> URL? {
        if let error { throw error }
        return fileURL
    }
}
