import AsyncHTTPClient
import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOHTTP2
import Synchronization

/// One attempt on AsyncHTTPClient: the client's response delegate, and the
/// attempt's ``HTTPTransportTask``.
///
/// The delegate's methods run on the task's event loop. Each one records
/// what arrived and hands the event over to the transport's callback queue
/// with `async` (which keeps their order). The one exception is a collected
/// response's end, head and body together: it is offered to the session
/// right there (``HTTPTransportEvents/didCompleteDirectly(head:body:)``),
/// which finishes the request on the loop only when that runs none of the
/// caller's code; otherwise it goes to the callback queue too.
/// The state sits behind `state`, the one lock: `cancel()` and the
/// transport's ``IdleWatch`` read it from other threads.
///
/// ## Back-pressure
/// A streamed body (downloads, streams) is handed to the callback queue
/// chunk by chunk. The client reads the next chunk from the socket only when
/// the future `didReceiveBodyPart` returns has succeeded, so that future is
/// left pending while more than ``pendingBodyLimit`` bytes are not yet
/// handled — by the session on the callback queue and by every stream
/// handler on its own queue (``HTTPTransportEvents/didReceive(data:handled:)``)
/// — and succeeds once half of them are: a consumer slower than the network
/// (a download written to disk, a slow stream handler anywhere) slows the
/// transfer down instead of letting chunks pile up in memory.
///
/// ## A connection the server closed
/// AsyncHTTPClient may send a request on a kept-alive connection the server
/// has just closed (HTTP lets a server close an idle connection at any time,
/// and the client learns of it only when it reads), and fails it. An
/// attempt that may be sent again without changing anything on the server —
/// an idempotent method, no body — and that lost its connection before any
/// byte of a response arrived is sent once more, on a connection the pool
/// opens or finds alive (``resend``), as libcurl does under URLSession. Its
/// successor then reports to the session; this attempt reports nothing.
final class AsyncHTTPClientAttempt: HTTPClientResponseDelegate, HTTPTransportTask {
    typealias Response = Void

    private struct State {
        var task: HTTPClient.Task<Void>?
        /// `cancel()` came before the client had the request.
        var cancelledEarly = false
        /// The response head, once it arrived.
        var head: HTTPResponseHead?
        /// The collected body, within the limit (collecting attempts).
        var collector: HTTPBodyCollector
        var bytesSent: Int64 = 0
        /// When anything last moved, for the idle timeout.
        var lastActivity = NIODeadline.now()
        /// The attempt reported its completion; later events are dropped.
        var completed = false
        /// Body bytes handed to the callback queue and not handled yet.
        var pendingBodyBytes = 0
        /// Succeeds to let the client read on; set while reading is held back.
        var readGate: EventLoopPromise<Void>?
        /// Decodes the body from its `Content-Encoding`, when the transport decodes.
        var decoder: ContentDecoder?
        /// Some of the body arrived: an encoded one must then end where its encoding does.
        var bodyArrived = false
        /// The head's content coding cannot be decoded: no body byte is passed on.
        var codingRefused = false
        /// The attempt sending the request again, once this one lost its connection.
        var successor: (any HTTPTransportTask)?
        /// `cancel()` was called: the request is not sent again, and a successor is cancelled.
        var cancelRequested = false
    }

    /// The most decoded bytes one step of a ``ContentDecoder`` hands over:
    /// a bomb's read is decoded this much at a time, each step checked
    /// against the limit (collected) or held back like any chunk (streamed).
    static let decodingStep = 256 << 10

    /// The most streamed body bytes that wait on the callback queue before
    /// the client stops reading from the socket. (A larger window buys no
    /// speed, only memory.)
    static let pendingBodyLimit = 1 << 20

    let url: URL
    let collectsBody: Bool
    /// Whether the body is decoded here (the client does not decompress).
    let decodesBody: Bool
    let events: any HTTPTransportEvents
    let queue: DispatchQueue
    let idleTimeout: TimeAmount
    let requestBodySize: Int64?
    /// Whether the request sent an `Upgrade` field (a `101` may answer it).
    let asksToUpgrade: Bool
    /// Counts the request body bytes written, for a body streamed from a
    /// file (`nil` without one).
    let requestBodyWindow: RequestBodyWindow?
    /// Finds the reason for a certificate chain that did not verify (`nil`: none).
    let diagnosis: CertificateDiagnosis?
    /// The host and handshake requirements of an attempt whose server trust
    /// is evaluated: a certificate the handshake refused is then the
    /// evaluation's failure (``HTTPError/ServerTrustFailureReason/defaultEvaluationFailed(output:)``).
    let evaluatedTrust: (host: String, requirements: ServerTrustRequirements)?
    /// The evaluated host's client the attempt leased, released when it ends.
    let trustClient: ServerTrustClients.Entry?
    /// What sends the request again, for an attempt that may be (see "A
    /// connection the server closed"); `nil` for one that may not, or is
    /// itself the second.
    let resend: AsyncHTTPClientTransport.Resend?
    /// Told when the attempt ends.
    let affinity: EventLoopAffinity
    /// Keeps the idle timeout, from `attach` to `end`.
    let idleWatch: IdleWatch
    private let state: Mutex<State>

    init(
        url: URL, attempt: HTTPTransportAttempt, asksToUpgrade: Bool = false, decodesBody: Bool, events: any HTTPTransportEvents,
        queue: DispatchQueue, requestBodyWindow: RequestBodyWindow?, requestBodySize: Int64?,
        diagnosis: CertificateDiagnosis? = nil, evaluatedTrust: (host: String, requirements: ServerTrustRequirements)? = nil,
        trustClient: ServerTrustClients.Entry? = nil, affinity: EventLoopAffinity, idleWatch: IdleWatch, resend: AsyncHTTPClientTransport.Resend? = nil
    ) {
        self.resend = resend
        self.affinity = affinity
        self.idleWatch = idleWatch
        self.diagnosis = diagnosis
        self.evaluatedTrust = evaluatedTrust
        self.trustClient = trustClient
        self.url = url
        collectsBody = attempt.collectsBody
        state = Mutex(State(collector: attempt.makeBodyCollector()))
        self.decodesBody = decodesBody
        self.events = events
        self.queue = queue
        idleTimeout = .nanoseconds(Int64(attempt.idleTimeout * 1e9))
        self.requestBodySize = requestBodySize
        self.requestBodyWindow = requestBodyWindow
        self.asksToUpgrade = asksToUpgrade
    }

    /// Records the client's task, right after `execute` on the task's event
    /// loop, and starts the idle timeout; a cancel that came first
    /// cancels the task now.
    func attach(_ task: HTTPClient.Task<Void>) {
        let attached = state.withLock { state -> (cancelled: Bool, deadline: NIODeadline)? in
            guard !state.completed else { return nil }
            state.task = task
            return (state.cancelledEarly, state.lastActivity + idleTimeout)
        }
        guard let attached else { return }
        // Errors the client reports to the task only (it fails a request
        // to a client already shut down without calling the delegate).
        task.futureResult.whenFailure { error in self.complete(with: error) }
        // An `end()` that came meanwhile leaves it to the next sweep to drop.
        idleWatch.watch(self, until: attached.deadline, on: task.eventLoop)
        if attached.cancelled { task.cancel() }
    }

    // MARK: - HTTPTransportTask

    func cancel() {
        let (task, successor) = state.withLock { state -> (HTTPClient.Task<Void>?, (any HTTPTransportTask)?) in
            state.cancelRequested = true
            guard !state.completed else { return (nil, state.successor) }
            // Not handed to the client yet: `attach` cancels it.
            if state.task == nil { state.cancelledEarly = true }
            return (state.task, nil)
        }
        // Thread-safe in AsyncHTTPClient; the delegate then receives `.cancelled`.
        task?.cancel()
        successor?.cancel()
    }

    // MARK: - Idle timeout (IdleWatch's sweep)

    /// Fails the attempt with `URLError.timedOut` if nothing moved for the
    /// idle timeout at `now`, and returns `nil`; returns `nil` too once it
    /// ended. Otherwise returns when it would time out if nothing moves.
    func timeOutIfIdle(at now: NIODeadline) -> NIODeadline? {
        let (task, deadline) = state.withLock { state -> (HTTPClient.Task<Void>?, NIODeadline?) in
            guard !state.completed else { return (nil, nil) }
            let deadline = state.lastActivity + idleTimeout
            return deadline <= now ? (state.task, nil) : (nil, deadline)
        }
        task?.fail(reason: URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        return deadline
    }

    // MARK: - HTTPClientResponseDelegate (on the task's event loop)

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        requestBodyWindow?.sent(part.readableBytes)
        let sent = state.withLock { state -> Int64 in
            state.lastActivity = .now()
            state.bytesSent += Int64(part.readableBytes)
            return state.bytesSent
        }
        guard !collectsBody else { return }
        let events = self.events
        let expected = requestBodySize
        queue.async { events.didSend(bytes: sent, of: expected) }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        if let refusal = HeadRefusal.reason(for: head, asksToUpgrade: asksToUpgrade) {
            return task.eventLoop.makeFailedFuture(
                URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: refusal, NSURLErrorFailingURLErrorKey: url])
            )
        }
        var decoder: ContentDecoder?
        var undecodable: (any Error)?
        let fields = head.headers["content-encoding"]
        let encoding = fields.isEmpty ? nil : fields.joined(separator: ", ")
        if decodesBody {
            do {
                decoder = try ContentDecoder(contentEncoding: encoding ?? "")
            } catch {
                // An encoding that cannot be decoded (or too many layers):
                // refused, never passed on encoded; the head is kept, as on URLSession.
                undecodable = error
            }
        }
        state.withLock { state in
            state.decoder = decoder
            state.codingRefused = undecodable != nil
            state.lastActivity = .now()
            state.head = head
            if collectsBody, let length = HTTPBodyCollector.decodedLength(
                contentLength: head.headers.first(name: "content-length").flatMap(Int64.init),
                contentEncoding: encoding
            ) {
                state.collector = HTTPBodyCollector(limit: state.collector.limit, expectedLength: Int(exactly: length))
            }
        }
        if !collectsBody {
            let events = self.events
            let url = self.url
            queue.async {
                events.didReceive(head: RequestConversion.response(head, url: url))
            }
        }
        if let undecodable { return task.eventLoop.makeFailedFuture(undecodable) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (decoder, refused) = state.withLock { state in
            state.bodyArrived = true
            return (state.decoder, state.codingRefused)
        }
        // The head failed already; should the client still hand over a part, it is not passed on encoded.
        if refused { return task.eventLoop.makeSucceededVoidFuture() }
        if let decoder {
            decoder.feed(Data(buffer.readableBytesView))
            return decode(with: decoder, task: task)
        }
        if collectsBody {
            // Past the limit: stop now; the delegate then sees the cancellation.
            if !collect({ collector throws(HTTPError) in
                try buffer.withUnsafeReadableBytes { bytes throws(HTTPError) in try collector.append(contentsOf: bytes) }
            }) {
                task.cancel()
            }
        } else if let gate = stream(Data(buffer.readableBytesView), on: task.eventLoop) {
            return gate
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    /// Decodes what `decoder` was fed a step at a time, collecting or
    /// streaming each step as it comes; the future succeeds when all of it
    /// was handed over and the client may read on.
    private func decode(with decoder: ContentDecoder, task: HTTPClient.Task<Void>) -> EventLoopFuture<Void> {
        do {
            while let piece = try decoder.read(upTo: Self.decodingStep) {
                if collectsBody {
                    guard collect({ collector throws(HTTPError) in try collector.append(piece) }) else {
                        task.cancel()
                        break
                    }
                } else if let gate = stream(piece, on: task.eventLoop) {
                    // Held back: go on decoding once the session caught up.
                    return gate.flatMap { self.decode(with: decoder, task: task) }
                }
            }
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    /// Adds a chunk to the collected body with `append`; `false` (and the
    /// body dropped) once it would grow past the limit.
    private func collect(_ append: (inout HTTPBodyCollector) throws(HTTPError) -> Void) -> Bool {
        state.withLock { state -> Bool in
            state.lastActivity = .now()
            do throws(HTTPError) {
                try append(&state.collector)
                return true
            } catch {
                return false
            }
        }
    }

    /// Hands a chunk of a streamed body to the callback queue; returns a
    /// future that succeeds when the client may read on, or `nil` when it
    /// may at once (see "Back-pressure").
    private func stream(_ data: Data, on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        let count = data.count
        let gate = state.withLock { state -> EventLoopPromise<Void>? in
            state.lastActivity = .now()
            state.pendingBodyBytes += count
            guard state.pendingBodyBytes > Self.pendingBodyLimit, !state.completed else { return nil }
            let gate = eventLoop.makePromise(of: Void.self)
            state.readGate = gate
            return gate
        }
        let events = self.events
        queue.async {
            events.didReceive(data: data) { self.handled(count) }
        }
        return gate?.futureResult
    }

    /// The session handled `count` bytes of the body: once half of
    /// the limit is left, the client reads on.
    private func handled(_ count: Int) {
        let gate = state.withLock { state -> EventLoopPromise<Void>? in
            state.pendingBodyBytes -= count
            // Handling a chunk is activity too: a slow consumer is not an idle server.
            state.lastActivity = .now()
            guard state.pendingBodyBytes <= Self.pendingBodyLimit / 2 else { return nil }
            defer { state.readGate = nil }
            return state.readGate
        }
        gate?.succeed()
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        complete(with: error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        // A compressed body must end where its encoding does. No body (a
        // HEAD's, a 204's, a 304's, a length of 0) is an empty one, whatever
        // encoding the head names, as URLSession takes it.
        if let decoder = state.withLock({ $0.bodyArrived ? $0.decoder : nil }) {
            do {
                try decoder.finish()
            } catch {
                return complete(with: error)
            }
        }
        guard let ending = end() else { return }
        // The last part went past the limit before the cancellation landed.
        if let tooLarge = ending.collector.error { return report(ending, failure: tooLarge) }
        let events = self.events
        let url = self.url
        guard let wireHead = ending.head else {
            let error = URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: url])
            return queue.async { events.didComplete(body: nil, error: error) }
        }
        guard collectsBody else { return queue.async { events.didComplete(body: nil, error: nil) } }
        // A collecting attempt reports its head with its completion (it
        // reported nothing before): straight from here when the session
        // can finish there, otherwise in one hop for both.
        let head = RequestConversion.response(wireHead, url: url)
        let body = ending.collector.body
        if events.didCompleteDirectly(head: head, body: body) { return }
        queue.async {
            events.didReceive(head: head)
            events.didComplete(body: body, error: nil)
        }
    }

    // MARK: - Completion

    /// Reports the attempt's failure, once.
    private func complete(with error: any Error) {
        guard let ending = end() else { return }
        if ending.head == nil, !ending.cancelRequested, let resend, Self.lostItsConnection(error) {
            // Off the event loop, whose delegate call this is.
            return queue.async { self.sendAgain(with: resend, orFailWith: error, ending) }
        }
        if let tooLarge = ending.collector.error { return report(ending, failure: tooLarge) }
        // The evaluator refused the connection's server (ServerTrustClients).
        if let refused = error as? HTTPError { return report(ending, failure: refused) }
        let failure = ErrorMapping.urlError(for: error, url: url)
        // BoringSSL does not say why a chain failed: look at it again.
        guard ending.head == nil, let diagnosis, TLSFailure(error)?.isUnverifiedChain == true else {
            return report(ending, failure: trustFailure(failure, error))
        }
        // Within the request's own timeout, when that is the shorter.
        diagnosis.diagnose(url, within: min(idleTimeout, diagnosis.deadline)).whenComplete { result in
            let finer = (try? result.get()) ?? nil
            self.report(ending, failure: self.trustFailure(finer?.refining(failure) ?? failure, error))
        }
    }

    /// Sends the request again as this attempt's successor, unless the
    /// transport shut down (then reports `error`); a `cancel()` that came
    /// meanwhile cancels the successor.
    private func sendAgain(with resend: AsyncHTTPClientTransport.Resend, orFailWith error: any Error, _ ending: Ending) {
        guard let successor = resend.start(events: events) else {
            return report(ending, failure: ErrorMapping.urlError(for: error, url: url))
        }
        let cancelled = state.withLock { state in
            state.successor = successor
            return state.cancelRequested
        }
        if cancelled { successor.cancel() }
    }

    /// Whether `error` says the connection closed before the response began:
    /// not a response cut short (the parser's end-of-file error, once bytes
    /// of it arrived), nor a cancellation, a timeout or a refusal.
    static func lostItsConnection(_ error: any Error) -> Bool {
        // An HTTP/2 stream the server reset reached it: REFUSED_STREAM says
        // it was not processed, and CANCEL is how SwiftNIO closes the streams
        // a GOAWAY left unprocessed (a server asking for calm, or failing,
        // is not asked again).
        if let reset = error as? NIOHTTP2Errors.StreamClosed { return [.refusedStream, .cancel].contains(reset.errorCode) }
        return !(error is HTTPParserError) && ErrorMapping.code(for: error) == .networkConnectionLost
    }

    /// A certificate failure of an evaluated attempt as the evaluation's
    /// failure (the handshake verifies the chain for the evaluator); any other failure as it is.
    private func trustFailure(_ failure: URLError, _ error: any Error) -> any Error {
        let certificateCodes: Set<URLError.Code> = [
            .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid,
        ]
        guard let evaluatedTrust, TLSFailure(error) != nil, certificateCodes.contains(failure.code) else { return failure }
        let trust = ServerTrust(
            host: evaluatedTrust.host, certificates: [], handshake: evaluatedTrust.requirements,
            validator: RefusedHandshakeValidator()
        )
        return HTTPError.serverTrustEvaluationFailed(reason: .defaultEvaluationFailed(output: .init(
            host: evaluatedTrust.host, trust: trust, detail: failure.localizedDescription
        )))
    }

    /// Reports a failed attempt with the head (a collecting attempt's, not
    /// reported yet) and collected body it got.
    private func report(_ ending: Ending, failure: any Error) {
        let collectsBody = self.collectsBody
        let body = collectsBody && ending.head != nil && !ending.collector.exceededLimit ? ending.collector.body : nil
        let events = self.events
        let url = self.url
        queue.async {
            if collectsBody, let head = ending.head {
                events.didReceive(head: RequestConversion.response(head, url: url))
            }
            events.didComplete(body: body, error: failure)
        }
    }

    /// What an attempt received, taken from its state as it ends.
    private struct Ending {
        var head: HTTPResponseHead?
        var collector: HTTPBodyCollector
        /// `cancel()` was called before the attempt ended.
        var cancelRequested = false
    }

    /// Marks the attempt completed and returns what it received; `nil` if
    /// it had completed already.
    private func end() -> Ending? {
        var gate: EventLoopPromise<Void>?
        let ending = state.withLock { state -> Ending? in
            guard !state.completed else { return nil }
            state.completed = true
            // Moved out, not copied: the body's only reference leaves with it.
            var ending = Ending(head: nil, collector: HTTPBodyCollector(limit: 0), cancelRequested: state.cancelRequested)
            swap(&ending.head, &state.head)
            swap(&ending.collector, &state.collector)
            swap(&gate, &state.readGate)
            (state.task, state.decoder) = (nil, nil)
            return ending
        }
        guard let ending else { return nil }
        affinity.ended()
        trustClient?.release()
        idleWatch.unwatch(self)
        requestBodyWindow?.close()
        // A client held back when the attempt failed must not wait forever
        // (nor leak the promise).
        gate?.succeed()
        return ending
    }
}
