import Dispatch
import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request whose body is handed over chunk by chunk as it arrives:
/// server-sent events, newline-delimited JSON, token streams, big bodies you
/// process on the fly.
///
/// ```swift
/// streamRequest("https://example.com/events")
///     .validate()
///     .responseStream { stream in
///         switch stream.event {
///         case .stream(.success(let chunk)): parse(chunk)
///         case .complete(let completion): print(completion.error ?? "done")
///         }
///     }
///
/// for try await chunk in streamRequest(url).streamingData() { parse(chunk) }
/// ```
///
/// ## How streaming fits the suspended queue
///
/// A request's handler queue stays suspended until the request finishes —
/// that is what orders handlers and gives each one outcome. Chunks cannot
/// wait there: they must reach you while the transfer runs. So a stream
/// handler has two halves. Its chunk half is kept by the request (a list of
/// handlers, the one place this library keeps one) and every chunk is
/// dispatched to each handler's queue as it arrives, in order. Its
/// completion half — the `.complete` event — is enqueued on the suspended
/// queue like any handler, so it runs exactly once, after every chunk was
/// dispatched, and in chaining order with other handlers.
///
/// Add stream handlers before the body starts: ``responseStream(on:stream:)``
/// starts the request, and a handler added later misses the chunks that
/// already went by. ``Request/validate()`` here judges the response head: a rejected
/// response's body is dropped (the transfer is cancelled), the retriers and
/// the session's ``RetryPolicy`` are asked as for any failed attempt (a
/// retried attempt's chunks are the stream), and otherwise `.complete`
/// carries the validation error. Once a chunk was handed to the handlers, a
/// failure is final: no retrier is asked, and `.complete` carries it (a
/// retry's body would follow the chunks they hold). Chunks are not kept, so the session's
/// ``Session/maximumResponseBodySize`` does not apply; their total is bounded
/// by ``Session/maximumStreamedBodySize`` (or the request's
/// ``Request/maximumResponseBodySize(_:)``): past it the transfer stops and
/// `.complete` carries ``HTTPError/responseTooLarge(limit:)``.
// `@unchecked Sendable` as `Request`: constants only here; what changes is in
// `Request.mutableState`, behind its one lock.
public final class DataStreamRequest: Request, @unchecked Sendable {
    /// A stream handler: it receives every event, and may throw to end the
    /// stream (the request then fails with the error, as
    /// ``HTTPError/SerializationFailureReason/customSerializationFailed(error:)``
    /// unless it is an ``HTTPError``).
    public typealias Handler<Success: Sendable, Failure: Error> = @Sendable (Stream<Success, Failure>) throws -> Void

    /// One event of a stream, and a way to cancel the request from the handler.
    public struct Stream<Success: Sendable, Failure: Error>: Sendable {
        /// What happened.
        public let event: Event<Success, Failure>
        /// Cancels the request.
        public let token: CancellationToken

        /// Cancels the request (as ``token`` does).
        public func cancel() {
            token.cancel()
        }

        /// The chunk's result, for a `.stream` event.
        public var result: Result<Success, Failure>? {
            guard case .stream(let result) = event else { return nil }
            return result
        }

        /// The chunk's value, for a successful `.stream` event.
        public var value: Success? {
            guard case .success(let value) = result else { return nil }
            return value
        }

        /// The chunk's error, for a failed `.stream` event.
        public var error: Failure? {
            guard case .failure(let error) = result else { return nil }
            return error
        }

        /// How the stream ended, for the `.complete` event.
        public var completion: Completion? {
            guard case .complete(let completion) = event else { return nil }
            return completion
        }
    }

    /// A chunk (serialized, or its failure), or the end.
    public enum Event<Success: Sendable, Failure: Error>: Sendable {
        /// A chunk of the body, in order.
        case stream(Result<Success, Failure>)
        /// The end of the stream, exactly once, after the last chunk.
        case complete(Completion)
    }

    /// Cancels the stream's request (held weakly).
    public struct CancellationToken: Sendable {
        weak let request: DataStreamRequest?
        /// The handler the token was handed to: its stream ends cancelled.
        fileprivate let handlersEnd: ThrownError

        fileprivate init(_ request: DataStreamRequest, endingWith handlersEnd: ThrownError) {
            self.request = request
            self.handlersEnd = handlersEnd
        }

        /// Cancels the request, if it still runs; the handler it was handed
        /// to sees its stream end with ``HTTPError/cancelled`` even when the
        /// transfer ended before the handler got to cancel (as in Alamofire,
        /// where the request waits for its stream handlers).
        public func cancel() {
            handlersEnd.record(.cancelled)
            request?.cancel()
        }
    }

    /// How a stream ended.
    public struct Completion: Sendable {
        /// The request as last sent.
        public let request: URLRequest?
        /// The response, if one arrived.
        public let response: HTTPURLResponse?
        /// The failure, or `nil` when the whole body arrived (and passed validation).
        public let error: HTTPError?
    }

    /// Whether a chunk the serializer cannot serialize cancels the request
    /// (after the handler received the failure). Default `false`.
    public let automaticallyCancelOnStreamError: Bool

    init(
        session: Session, urlRequest: URLRequest, interceptor: (any RequestInterceptor)?, automaticallyCancelOnStreamError: Bool = false,
        madeFrom convertible: (any URLRequestConvertible)? = nil
    ) {
        self.automaticallyCancelOnStreamError = automaticallyCancelOnStreamError
        super.init(session: session, urlRequest: urlRequest, interceptor: interceptor, kind: .stream(.init()), madeFrom: convertible)
    }

    init(session: Session, failedWith error: HTTPError, madeFrom convertible: (any URLRequestConvertible)? = nil) {
        automaticallyCancelOnStreamError = false
        super.init(session: session, failedWith: error, urlRequest: nil, madeFrom: convertible)
    }

    /// A stream released unstarted is not sent: nobody would read the chunks.
    override func unobservedCopy(on session: Session) -> Request? { nil }

    /// Adds a stream handler of the raw chunks and starts the request.
    ///
    /// - Parameters:
    ///   - queue: Where `stream` runs (default `.main`); use a serial queue to
    ///     receive chunks in order.
    ///   - stream: Receives every chunk, then one `.complete`.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseStream(on queue: DispatchQueue = .main, stream: @escaping Handler<Data, Never>) -> Self {
        addStream(on: queue, { .success($0) }, stream)
    }

    /// Adds a stream handler of chunks serialized by `serializer` and starts
    /// the request. A chunk it cannot serialize reaches `stream` as a
    /// failure (and cancels the request when ``automaticallyCancelOnStreamError``).
    ///
    /// - Parameters:
    ///   - serializer: Turns each chunk into a value.
    ///   - queue: Where `stream` runs (default `.main`).
    ///   - stream: Receives every chunk's result, then one `.complete`.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseStream<Serializer: DataStreamSerializer>(
        using serializer: Serializer, on queue: DispatchQueue = .main,
        stream: @escaping Handler<Serializer.SerializedObject, HTTPError>
    ) -> Self {
        addStream(on: queue, parsing { data in
            Result { try serializer.serialize(data) }.mapError { HTTPError(serializationStep: $0) }
        }, stream)
    }

    /// Adds a stream handler of each chunk as UTF-8 text (invalid bytes
    /// replaced) and starts the request.
    @discardableResult
    public func responseStreamString(on queue: DispatchQueue = .main, stream: @escaping Handler<String, Never>) -> Self {
        addStream(on: queue, parsing { .success(String(decoding: $0, as: UTF8.self)) }, stream)
    }

    /// Adds a stream handler of each chunk decoded as `type` and starts the
    /// request (a chunk per value: newline-delimited JSON split by the server's writes).
    @discardableResult
    public func responseStreamDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self, on queue: DispatchQueue = .main, using decoder: any DataDecoder = JSONDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor(), stream: @escaping Handler<T, HTTPError>
    ) -> Self {
        responseStream(using: DecodableStreamSerializer<T>(decoder: decoder, dataPreprocessor: preprocessor), on: queue, stream: stream)
    }

    /// `parse`, telling the monitors each result (``EventMonitor/request(_:didParseStream:)``).
    private func parsing<Success: Sendable, Failure: Error>(
        _ parse: @escaping @Sendable (Data) -> Result<Success, Failure>
    ) -> @Sendable (Data) -> Result<Success, Failure> {
        guard let monitor = eventMonitor else { return parse }
        return { [weak self] data in
            let result = parse(data)
            if let self { monitor.request(self, didParseStream: result.mapError { HTTPError(serializationStep: $0) }) }
            return result
        }
    }

    /// Registers a handler whose chunks `transform` turns into results.
    private func addStream<Success: Sendable, Failure: Error>(
        on queue: DispatchQueue, _ transform: @escaping @Sendable (Data) -> Result<Success, Failure>,
        _ stream: @escaping Handler<Success, Failure>
    ) -> Self {
        let cancelsOnError = automaticallyCancelOnStreamError
        // This handler's own throw or cancel: its completion reports it even
        // when the transfer ended first (a small body may be complete before
        // the handler, on its own queue, reached its first chunk).
        let thrown = ThrownError()
        let token = CancellationToken(self, endingWith: thrown)
        addStreamHandler(StreamHandler(queue: queue, chunk: { [weak self] data in
            let result = transform(data)
            do {
                try stream(Stream(event: .stream(result), token: token))
            } catch {
                let failure = HTTPError(serializationStep: error)
                thrown.record(failure)
                self?.finish(failingWith: failure)
            }
            if case .failure = result, cancelsOnError {
                thrown.record(.cancelled)
                self?.cancel()
            }
        }, complete: { completion in
            let ended = thrown.error.map {
                Completion(request: completion.request, response: completion.response, error: $0)
            } ?? completion
            // The end cannot be undone: an error thrown here has nowhere to go.
            try? stream(Stream(event: .complete(ended), token: token))
        }))
        return self
    }

    /// The body as an asynchronous sequence of chunks, which ends after the
    /// last one and throws the request's ``HTTPError``. Cancelling the
    /// consuming `Task` (or ending the iteration early) cancels the request.
    ///
    /// A reader that falls behind holds the transfer back on a transport that
    /// waits for each chunk to be handled (AsyncHTTPClient, `MockTransport`):
    /// once about 1 MiB waits for the reader, the transport reads no further
    /// until it catches up, so memory stays flat however slow the loop.
    /// URLSession on Linux cannot be held back for one request (its work queue
    /// is shared by every session of the process): there the chunks a slow
    /// reader has not taken wait in memory.
    public func streamingData() -> AsyncThrowingStream<Data, any Error> {
        let buffer = StreamingDataBuffer()
        let reader = StreamReader(buffer: buffer, request: self)
        // Appended right on the transport's queue, without a hop that would
        // let chunks pile up in between.
        addStreamHandler(StreamHandler(queue: callbackQueue, buffer: buffer, chunk: { _ in }) { completion in
            buffer.finish(throwing: completion.error)
        })
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    /// Registers `handler` for the chunks and enqueues its `.complete`.
    private func addStreamHandler(_ handler: StreamHandler) {
        enqueueOutcome(on: handler.queue, CompletionResponder(), { completion in
            handler.complete(completion)
        }, beforeResuming: { state in
            state.addStreamHandler(handler)
        })
    }

    /// A chunk goes to the handlers there when it arrives, and is not kept
    /// for later ones: the first attempt waits one turn of the callback
    /// queue, so every handler chained in the statement that started the
    /// stream is there for its first chunk (as in Alamofire, whose tasks
    /// start a hop later too). A handler added later sees what arrives after.
    override var startsOnCallbackQueue: Bool { true }

    override func addValidation(inline: Bool = true, _ check: @escaping RawValidation) {
        mutableState.withLock(owner: self) { $0.addHeadValidator(check) }
    }

    /// The first failure of a stream's head `validators`, if any (run outside the lock).
    func headError(_ validators: [RawValidation], request: URLRequest?, response: ResponseHead) -> HTTPError? {
        for check in validators {
            let result = check(request, response, nil)
            eventMonitor?.request(self, didValidateRequest: request, response: response.response, withResult: result)
            if case .failure(let error) = result {
                return error as? HTTPError ?? .responseValidationFailed(reason: .customValidationFailed(error: error))
            }
        }
        return nil
    }

    override func consume(_ data: Data, attempt number: Int, handled: (@Sendable () -> Void)?) {
        let sessionLimit = streamedBodyLimit
        let action = mutableState.withLock(owner: self) { state in
            let action = state.receiveStreamChunk(count: data.count, attempt: number, sessionLimit: sessionLimit)
            if case .deliver = action { eventMonitor?.request(self, didReceive: data) }
            return action
        }
        switch action {
        case .deliver(let handlers):
            deliver(data, to: handlers, handled: handled)
        case .fail(let error):
            finish(failingWith: error)
            handled?()
        case .none:
            handled?()
        }
    }

    /// Hands a chunk to every stream handler, after the lock.
    ///
    /// `.complete` still comes after the chunk for every handler: this runs
    /// on the transport's callback queue, which the handler queue targets, so
    /// a `.complete` that a cancel or a timeout settles meanwhile is enqueued
    /// only once this block has returned.
    private func deliver(_ data: Data, to handlers: [StreamHandler], handled: (@Sendable () -> Void)?) {
        let callbackQueue = self.callbackQueue
        var later = 0
        for handler in handlers where handler.queue !== callbackQueue || handler.buffer != nil { later += 1 }
        // One arrival per handler done later (elsewhere, or by a reader),
        // and one for those run here.
        let countdown = handled.map { Countdown(later + 1, then: $0) }
        for handler in handlers where handler.queue !== callbackQueue {
            // The request lives until its chunk was handled: a handler's
            // cancel and the monitors' parse events name it (nothing else may
            // hold it once the transfer ended).
            handler.queue.async {
                withExtendedLifetime(self) { handler.chunk(data) }
                countdown?.arrive()
            }
        }
        // Handlers on the callback queue (this one) run here: they may cancel the request.
        for handler in handlers where handler.queue === callbackQueue {
            if let buffer = handler.buffer {
                if let countdown {
                    buffer.append(data) { countdown.arrive() }
                } else {
                    buffer.append(data, release: nil)
                }
            } else {
                handler.chunk(data)
            }
        }
        if let countdown { countdown.arrive() } else { handled?() }
    }
}

/// The reading end of ``DataStreamRequest/streamingData()``: a reader that
/// stops early (its task cancelled, or the sequence dropped) cancels the request.
private final class StreamReader: Sendable {
    private let buffer: StreamingDataBuffer
    private let request: DataStreamRequest

    init(buffer: StreamingDataBuffer, request: DataStreamRequest) {
        self.buffer = buffer
        self.request = request
    }

    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await buffer.next()
        } onCancel: {
            self.stop()
        }
    }

    /// Cancels first: released first, the transport could finish the body
    /// before the cancel lands.
    private func stop() {
        guard !buffer.hasEnded else { return }
        request.cancel()
        buffer.abandon()
    }

    deinit { stop() }
}

/// Calls its action once the given number of arrivals happened, from any thread.
private final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let action: @Sendable () -> Void

    init(_ count: Int, then action: @escaping @Sendable () -> Void) {
        remaining = Atomic(count)
        self.action = action
    }

    func arrive() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { action() }
    }
}

/// A stream handler and the queue it runs on; chunks go to `buffer`
/// instead when there is one (``DataStreamRequest/streamingData()``).
struct StreamHandler: Sendable {
    let queue: DispatchQueue
    var buffer: StreamingDataBuffer? = nil
    /// A chunk, on `queue` (unless `buffer` takes it).
    let chunk: @Sendable (Data) -> Void
    /// The end, on `queue`, after every chunk.
    let complete: @Sendable (DataStreamRequest.Completion) -> Void
}

/// The first error a stream handler threw, recorded on its queue and read by
/// its completion (its one lock: ``error``'s).
private final class ThrownError: Sendable {
    private let storage = Mutex<HTTPError?>(nil)

    var error: HTTPError? { storage.withLock(owner: self) { $0 } }

    func record(_ error: HTTPError) {
        storage.withLock(owner: self) { $0 = $0 ?? error }
    }
}

/// What a stream's `.complete` handler receives: the request, response and failure.
private struct CompletionResponder: OutcomeResponder {
    func response(to raw: RawResponse, settled: Bool, of request: Request?) -> DataStreamRequest.Completion {
        DataStreamRequest.Completion(request: raw.request, response: raw.response, error: raw.error)
    }
}
