import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a data request's handler receives: `serializer`'s value (or
/// failure) in a ``DataResponse``, with the request, head, body and timing.
struct DataResponder<Serializer: DataResponseSerializerProtocol>: OutcomeResponder {
    let serializer: Serializer
    /// `Request.start`, kept here: the handler holds the request weakly.
    let start: Date
    /// The session's monitors, told of each response built.
    let monitor: CompositeEventMonitor?

    var serializing: SerializingWork { (serializer as? any LibrarySerializer)?.work ?? .callersCode }

    func response(to raw: RawResponse, settled: Bool, of request: Request?) -> DataResponse<Serializer.SerializedObject, HTTPError> {
        let began = DispatchTime.now()
        let result = settled ? serializer.result(for: raw) : .failure(raw.error ?? .abandoned)
        let response = DataResponse(
            request: raw.request, head: raw.head, data: raw.data, result: result,
            timing: ResponseTiming(start: start, end: raw.end), serializationDuration: began.secondsElapsed
        )
        if let monitor, let request = request as? DataRequest { monitor.request(request, didParseResponse: response) }
        return response
    }
}

/// The body as it arrived, or the failure: what `response(queue:completionHandler:)`
/// and `serializingResponse()` deliver, unserialized.
struct RawBodySerializer: DataResponseSerializerProtocol {
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> Data? {
        if let error { throw error }
        return data
    }

    func serialize(request: URLRequest?, head: ResponseHead?, data: Data?, error: HTTPError?) throws -> Data? {
        if let error { throw error }
        return data
    }
}
