import Dispatch
import Foundation
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
///         case .stream(let chunk): parse(chunk)
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
/// Add stream handlers before the body starts: ``responseStream(queue:stream:)``
/// starts the request, and a handler added later misses the chunks that
/// already went by. ``Request/validate()`` here judges the response head: a rejected
/// response's body is dropped (the transfer is cancelled) and `.complete`
/// carries the validation error. Chunks are not kept, so the session's
/// ``Session/maximumResponseBodySize`` does not apply; their total is bounded
/// by ``Session/maximumStreamedBodySize`` (or the request's
/// ``Request/maximumResponseBodySize(_:)``): past it the transfer stops and
/// `.complete` carries ``HTTPError/responseTooLarge(limit:)``.
// `@unchecked Sendable` as `Request`: constants only here; what changes is in
// `Request.mutableState`, behind its one lock.
public final class DataStreamRequest: Request, @unchecked Sendable {
    /// One event of a stream.
    public struct Stream: Sendable {
        /// What happened.
        public let event: Event
    }

    /// A chunk, or the end.
    public enum Event: Sendable {
        /// A chunk of the body, in order.
        case stream(Data)
        /// The end of the stream, exactly once, after the last chunk.
        case complete(Completion)
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

    init(session: Session, urlRequest: URLRequest, interceptor: (any RequestInterceptor)?) {
        super.init(session: session, urlRequest: urlRequest, interceptor: interceptor, kind: .stream(.init()))
    }

    init(session: Session, failedWith error: HTTPError) {
        super.init(session: session, failedWith: error, urlRequest: nil)
    }

    /// A stream released unstarted is not sent: nobody would read the chunks.
    override var unobservedCopy: Request? { nil }

    /// Adds a stream handler and starts the request.
    ///
    /// - Parameters:
    ///   - queue: Where `stream` runs (default `.main`); use a serial queue to
    ///     receive chunks in order.
    ///   - stream: Receives every chunk, then one `.complete`.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseStream(
        queue: DispatchQueue = .main,
        stream: @escaping @Sendable (Stream) -> Void
    ) -> Self {
        addStreamHandler(StreamHandler(queue: queue, handler: stream))
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
        addStreamHandler(StreamHandler(queue: session.transport.callbackQueue, buffer: buffer) { stream in
            if case .complete(let completion) = stream.event { buffer.finish(throwing: completion.error) }
        })
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    /// Registers `handler` for the chunks and enqueues its `.complete`.
    private func addStreamHandler(_ handler: StreamHandler) {
        enqueueOutcome(on: handler.queue, { raw, _ in
            Completion(request: raw.request, response: raw.response, error: raw.error)
        }, { completion in
            handler.handler(Stream(event: .complete(completion)))
        }, beforeResuming: { state in
            state.addStreamHandler(handler)
        })
    }

    override func addValidation(_ check: @escaping RawValidation) {
        mutableState.withLock(owner: self) { $0.addHeadValidator(check) }
    }

    /// The first failure of a stream's head `validators`, if any (run outside the lock).
    static func headError(_ validators: [RawValidation], request: URLRequest?, response: HTTPURLResponse) -> HTTPError? {
        for check in validators {
            if case .failure(let error) = check(request, response, nil) {
                return error as? HTTPError ?? .responseValidationFailed(reason: .customValidationFailed(error: error))
            }
        }
        return nil
    }

    override func consume(_ data: Data, attempt number: Int, handled: (@Sendable () -> Void)?) {
        let sessionLimit = session.maximumStreamedBodySize
        let action = mutableState.withLock(owner: self) {
            $0.receiveStreamChunk(count: data.count, attempt: number, sessionLimit: sessionLimit)
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
        let callbackQueue = session.transport.callbackQueue
        var later = 0
        for handler in handlers where handler.queue !== callbackQueue || handler.buffer != nil { later += 1 }
        // One arrival per handler done later (elsewhere, or by a reader),
        // and one for those run here.
        let countdown = handled.map { Countdown(later + 1, then: $0) }
        for handler in handlers where handler.queue !== callbackQueue {
            handler.queue.async {
                handler.handler(Stream(event: .stream(data)))
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
                handler.handler(Stream(event: .stream(data)))
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
    let handler: @Sendable (DataStreamRequest.Stream) -> Void
}
