import Dispatch
import Foundation

extension DataStreamRequest {
    /// The stream as an async task (Alamofire's `streamTask()`): its events
    /// as asynchronous sequences, and `cancel()`.
    public func streamTask() -> DataStreamTask {
        DataStreamTask(request: self)
    }
}

/// A ``DataStreamRequest`` seen from async code: each `streaming…` method
/// starts the request (if it has not started) and returns its events, chunk
/// by chunk then `.complete`, as a ``StreamOf``.
///
/// ```swift
/// for await event in streamRequest(url).streamTask().streamingStrings() {
///     if let line = event.value { print(line) }
/// }
/// ```
///
/// With `automaticallyCancelling` (the default), leaving the loop early or
/// cancelling the enclosing task cancels the request. The sequence buffers
/// events for a slow consumer as `bufferingPolicy` says (`.unbounded`, as
/// Alamofire): for a large body read slowly, ``DataStreamRequest/streamingData()``,
/// which holds the transfer back instead, keeps memory flat.
public struct DataStreamTask: Sendable {
    /// The sequences this task makes.
    public typealias Stream<Success: Sendable, Failure: Error> = StreamOf<DataStreamRequest.Stream<Success, Failure>>

    private let request: DataStreamRequest

    init(request: DataStreamRequest) {
        self.request = request
    }

    /// The raw chunks, then the end.
    public func streamingData(
        automaticallyCancelling: Bool = true, bufferingPolicy: Stream<Data, Never>.BufferingPolicy = .unbounded
    ) -> Stream<Data, Never> {
        makeStream(automaticallyCancelling, bufferingPolicy) { request.responseStream(on: $0, stream: $1) }
    }

    /// Each chunk as UTF-8 text, then the end.
    public func streamingStrings(
        automaticallyCancelling: Bool = true, bufferingPolicy: Stream<String, Never>.BufferingPolicy = .unbounded
    ) -> Stream<String, Never> {
        makeStream(automaticallyCancelling, bufferingPolicy) { request.responseStreamString(on: $0, stream: $1) }
    }

    /// Each chunk decoded as `T` (or its failure), then the end.
    public func streamingDecodables<T: Decodable & Sendable>(
        _ type: T.Type = T.self, automaticallyCancelling: Bool = true,
        bufferingPolicy: Stream<T, HTTPError>.BufferingPolicy = .unbounded
    ) -> Stream<T, HTTPError> {
        streamingResponses(
            serializedUsing: DecodableStreamSerializer<T>(), automaticallyCancelling: automaticallyCancelling,
            bufferingPolicy: bufferingPolicy
        )
    }

    /// Each chunk as `serializer` makes it (or its failure), then the end.
    public func streamingResponses<Serializer: DataStreamSerializer>(
        serializedUsing serializer: Serializer, automaticallyCancelling: Bool = true,
        bufferingPolicy: Stream<Serializer.SerializedObject, HTTPError>.BufferingPolicy = .unbounded
    ) -> Stream<Serializer.SerializedObject, HTTPError> {
        makeStream(automaticallyCancelling, bufferingPolicy) { request.responseStream(using: serializer, on: $0, stream: $1) }
    }

    /// Cancels the request.
    public func cancel() {
        request.cancel()
    }

    /// Starts the request if no handler did yet, or lets it go on after ``suspend()``.
    public func resume() {
        request.resume()
    }

    /// Suspends the request (see ``Request/suspend()``).
    public func suspend() {
        request.suspend()
    }

    /// A sequence fed by a stream handler on the transport's queue (the
    /// events are yielded there, in order, without another hop).
    private func makeStream<Success: Sendable, Failure: Error>(
        _ automaticallyCancelling: Bool, _ bufferingPolicy: Stream<Success, Failure>.BufferingPolicy,
        register: (DispatchQueue, @escaping DataStreamRequest.Handler<Success, Failure>) -> Void
    ) -> Stream<Success, Failure> {
        let request = self.request
        // After the last event the request is over and `cancel()` does nothing.
        return StreamOf(bufferingPolicy: bufferingPolicy, onTermination: {
            if automaticallyCancelling { request.cancel() }
        }) { continuation in
            register(request.callbackQueue) { stream in
                continuation.yield(stream)
                if case .complete = stream.event { continuation.finish() }
            }
        }
    }
}
