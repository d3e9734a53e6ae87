import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LockSupport
import Synchronization

/// An ``HTTPTransport`` that answers from memory, for tests of code that
/// uses a ``Session``: no sockets, no server, every attempt recorded.
///
/// ```swift
/// import DeferredQueue
/// import DeferredQueueTesting
///
/// let transport = MockTransport { request in
///     request.url?.path == "/entry" ? .json(#"{"title":"hello"}"#) : .status(404)
/// }
/// let session = Session(transport: transport)
/// ```
///
/// Replies are played on ``callbackQueue`` and keep the transport contract
/// (see ``HTTPTransport``): the head first, a collected body through the
/// attempt's ``HTTPBodyCollector`` (so the session's limits apply), streamed
/// chunks otherwise (each once the previous one was handled, so a slow
/// reader holds the reply back), then exactly one completion. Waits honour the attempt's
/// idle timeout, and ``HTTPTransportTask/cancel()`` completes an attempt with
/// `URLError.cancelled`. Everything else — redirects, retries, cookies,
/// authentication, validation — is the session's, exactly as on a real
/// transport, so a test on this transport checks your code and the session's
/// policies together.
public final class MockTransport: HTTPTransport {
    public let callbackQueue = DispatchQueue(label: "DeferredQueueTesting.MockTransport")
    /// `nil`: replies are handed over as they are scripted (already decoded).
    public let acceptEncoding: String? = nil

    private let reply: @Sendable (URLRequest) -> MockReply
    private let recorded = Mutex<[HTTPTransportAttempt]>([])
    private let shutDown = Atomic(false)

    /// A transport that answers each request with what `reply` returns for it.
    public init(_ reply: @escaping @Sendable (URLRequest) -> MockReply) {
        self.reply = reply
    }

    /// A transport that answers every request with `reply`.
    public convenience init(replying reply: MockReply) {
        self.init { _ in reply }
    }

    /// Every attempt started so far, in order (redirects, retries and
    /// authentication round trips are attempts of their own).
    public var attempts: [HTTPTransportAttempt] { recorded.withLock(owner: self) { $0 } }

    /// The request of every attempt so far, as it went on the wire.
    public var requests: [URLRequest] { attempts.map(\.request) }

    /// Whether the owning session went away and shut the transport down.
    public var isShutDown: Bool { shutDown.load(ordering: .acquiring) }

    public func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask {
        recorded.withLock(owner: self) { $0.append(attempt) }
        let running = MockAttempt(attempt: attempt, steps: reply(attempt.request).steps, events: events, queue: callbackQueue)
        callbackQueue.async { running.start() }
        return running
    }

    public func shutdown() {
        shutDown.store(true, ordering: .releasing)
    }
}

/// One attempt being played: its steps run on the callback queue, and
/// `state` (the one lock) decides between them and `cancel()`.
final class MockAttempt: HTTPTransportTask {
    private struct State {
        var finished = false
        var head: HTTPURLResponse?
        var collector: HTTPBodyCollector
    }

    private let attempt: HTTPTransportAttempt
    private let steps: [MockReply.Step]
    private let events: any HTTPTransportEvents
    private let queue: DispatchQueue
    private let state: Mutex<State>

    init(attempt: HTTPTransportAttempt, steps: [MockReply.Step], events: any HTTPTransportEvents, queue: DispatchQueue) {
        self.attempt = attempt
        self.steps = steps
        self.events = events
        self.queue = queue
        state = Mutex(State(collector: attempt.makeBodyCollector()))
    }

    /// Reports the request body as sent, then plays the steps (on the callback queue).
    func start() {
        if !attempt.collectsBody, let sent = requestBodySize, sent > 0, isRunning {
            events.didSend(bytes: sent, of: sent)
        }
        play(from: 0)
    }

    func cancel() {
        guard finish() else { return }
        let events = self.events
        queue.async { events.didComplete(body: nil, error: URLError(.cancelled)) }
    }

    private var isRunning: Bool { state.withLock(owner: self) { !$0.finished } }

    private var requestBodySize: Int64? {
        if let file = attempt.bodyFile {
            return (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        }
        return attempt.request.httpBody.map { Int64($0.count) }
    }

    /// `true` for the one caller that gets to complete the attempt.
    private func finish() -> Bool {
        state.withLock(owner: self) { state in
            defer { state.finished = true }
            return !state.finished
        }
    }

    private func play(from index: Int) {
        var index = index
        while index < steps.count {
            guard isRunning else { return }
            switch steps[index] {
            case .head(let status, let headers):
                guard let url = attempt.request.url,
                      let head = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
                else { return fail(URLError(.badServerResponse)) }
                state.withLock(owner: self) { $0.head = head }
                events.didReceive(response: head)
            case .chunk(let data):
                guard state.withLock(owner: self, { $0.head != nil }) else { return fail(URLError(.badServerResponse)) }
                if attempt.collectsBody {
                    let tooLarge = state.withLock(owner: self) { state -> HTTPError? in
                        do throws(HTTPError) {
                            try state.collector.append(data)
                            return nil
                        } catch {
                            return error
                        }
                    }
                    if let tooLarge { return fail(tooLarge) }
                } else {
                    // Like a network transport, read on only once the chunk
                    // was handled: a slow reader holds the reply back.
                    let next = index + 1
                    return events.didReceive(data: data) { [self] in queue.async { self.play(from: next) } }
                }
            case .wait(let seconds):
                let timeout = attempt.idleTimeout
                guard seconds < timeout else {
                    return queue.asyncAfter(deadline: .now() + timeout) { self.fail(URLError(.timedOut)) }
                }
                let next = index + 1
                return queue.asyncAfter(deadline: .now() + max(0, seconds)) { self.play(from: next) }
            case .fail(let error):
                return fail(error)
            }
            index += 1
        }
        guard state.withLock(owner: self, { $0.head != nil }) else { return fail(URLError(.badServerResponse)) }
        guard finish() else { return }
        let body = attempt.collectsBody ? state.withLock(owner: self) { $0.collector.take() } : nil
        events.didComplete(body: body, error: nil)
    }

    /// Completes the attempt with `error` (on the callback queue), unless it completed already.
    private func fail(_ error: any Error) {
        guard finish() else { return }
        let tooLarge = (error as? HTTPError).map { if case .responseTooLarge = $0 { true } else { false } } ?? false
        let body = attempt.collectsBody && !tooLarge ? state.withLock(owner: self) { $0.head == nil ? nil : $0.collector.take() } : nil
        events.didComplete(body: body, error: error)
    }
}
