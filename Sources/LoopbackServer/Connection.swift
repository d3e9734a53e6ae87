import Dispatch
import Foundation
import LockSupport
import Synchronization

/// One accepted TCP connection: reads requests, asks the handler, writes the replies.
///
/// ## Threading
/// Each connection owns a serial `queue`. Everything happens there: the read
/// and write sources' handlers, the request handler, the pauses of a reply
/// (`asyncAfter` on that queue, so a slow reply never blocks another
/// connection). The one call made from elsewhere is ``forceClose()`` (from
/// `LoopbackServer.shutdown()`), which shuts the socket down under the lock and
/// then hops onto the queue. All mutable state sits in ``state``; the lock is
/// uncontended except for that one call.
///
/// ## Lifecycle
/// `open` (requests answered in order, pipelined ones queued) → `draining`
/// (a reply asked to close: flush what is queued) → `lingering` (write side
/// shut down; input is read and dropped until the client closes, at most
/// ``lingerSeconds``, so unread input does not turn the close into a reset that
/// could destroy the reply) → `closed` (sources cancelled; the descriptor is
/// closed once every source's cancel handler ran, then the server is told).
/// A source that missed an event is replaced on a duplicate descriptor,
/// which its own cancel handler closes (see ``sweep()``).
final class Connection: Sendable {
    /// Callbacks into the server; they run on this connection's queue.
    struct Events: Sendable {
        /// A request was read completely.
        var requestRead: @Sendable () -> Void
        /// The descriptor is closed; the argument is the connection's id.
        var closed: @Sendable (Int) -> Void
        /// ``sweep()`` did what a source had not reported.
        var sourceMissed: @Sendable () -> Void
    }

    /// The longest wait for the client to close after the server closed its side.
    static let lingerSeconds = 2.0
    /// A streamed body is produced only while fewer bytes than this wait to be written.
    static let streamHighWater = 512 * 1024
    /// Bytes read per `recv`.
    private static let readChunk = 64 * 1024

    let id: Int
    let fd: Int32
    let queue: DispatchQueue
    private let handler: RequestHandler
    let events: Events
    let state: Mutex<State>
    /// Which sources are suspended once more as soon as they exist, as if
    /// their events were lost (for tests of ``sweep()``).
    let silenced: SilencedSources

    struct SilencedSources: Sendable {
        var read = false
        var write = false
    }

    enum Phase { case open, draining, lingering, closed }

    /// Work waiting for its turn: replies go out in request order.
    enum Work {
        case answer(ParsedRequest)
        case reject(HTTPParseError)
    }

    struct ActiveReply {
        var steps: [ReplyStep]
        var next = 0
        var closesAfter: Bool
        /// The body being produced, while a ``ReplyStep/stream(_:)`` step runs.
        var stream: BodyStream?
    }

    struct State {
        var phase = Phase.open
        var parser: HTTPRequestParser
        var parserFailed = false
        var pending: [Work] = []
        var reply: ActiveReply?
        /// The active reply is ``Reply/neverRespond``: nothing more will be written.
        var holding = false
        var outbox = Outbox()
        /// A streamed body waits for the outbox to drain before producing more.
        var awaitingDrain = false
        var peerClosed = false
        var readSource: (any DispatchSourceRead)?
        var readSuspended = false
        var writeSource: (any DispatchSourceWrite)?
        var writeSuspended = false
        /// The source is suspended once more for a test (see ``silenced``).
        var readSilenced = false
        var writeSilenced = false
        var liveSources = 0
        var fdClosed = false
        /// When each source's handler last ran, for ``sweep()``.
        var readReported = DispatchTime.now()
        var writeReported = DispatchTime.now()
        /// When ``sweep()`` last found the socket ready for an armed source, if it did.
        var readReadyAtSweep: DispatchTime?
        var writeReadyAtSweep: DispatchTime?
    }

    /// - Parameter parser: a fresh parser with the server's limits.
    init(
        id: Int, fd: Int32, parser: HTTPRequestParser, handler: @escaping RequestHandler, events: Events,
        silenced: SilencedSources = SilencedSources()
    ) {
        self.id = id
        self.silenced = silenced
        self.fd = fd
        self.handler = handler
        self.events = events
        self.state = Mutex(State(parser: parser))
        self.queue = .serverQueue(label: "LoopbackServer.connection.\(id)")
    }

    /// Starts reading; call once, right after accepting.
    func start() {
        queue.async { [self] in
            state.withLock(owner: self) { state in
                // Closed before starting (server shut down): finalClose already closed the descriptor.
                guard state.phase != .closed else { return }
                installReadSource(&state, on: fd)
            }
        }
    }

    /// Closes the connection now, whatever it is doing. Callable from any thread.
    ///
    /// The socket is shut down at once (the client sees the connection end
    /// immediately); sources and descriptor are released on the queue.
    func forceClose() {
        state.withLock(owner: self) { state in
            if !state.fdClosed { Socket.shutdown(fd, writeOnly: false) }
        }
        queue.async { [self] in finalClose() }
    }

    // MARK: - Reading

    /// Reads what the socket holds; run by the read source, or by ``sweep()`` when the source missed it.
    func readable() {
        var endOfFile = false
        var failed = false
        withUnsafeTemporaryAllocation(byteCount: Self.readChunk, alignment: 1) { buffer in
            for _ in 0..<16 {
                switch Socket.receive(fd, into: buffer) {
                case .transferred(let count):
                    state.withLock(owner: self) { state in
                        guard state.phase == .open, !state.parserFailed else { return }
                        state.parser.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                    }
                    if count < buffer.count { return }
                case .endOfFile:
                    endOfFile = true
                    return
                case .wouldBlock:
                    return
                case .failed:
                    failed = true
                    return
                }
            }
        }
        if failed { return finalClose() }
        parseBufferedRequests()
        if endOfFile { peerDidClose() }
        pump()
    }

    /// Moves complete requests from the parser to the work queue.
    private func parseBufferedRequests() {
        var sendContinue = false
        var readCount = 0
        state.withLock(owner: self) { state in
            guard state.phase == .open else { return }
            while !state.parserFailed {
                do throws(HTTPParseError) {
                    guard let event = try state.parser.next() else { break }
                    switch event {
                    case .request(let request):
                        state.pending.append(.answer(request))
                        readCount += 1
                    case .expectsContinue:
                        // Only when nothing is being answered, or it would interleave with that reply.
                        sendContinue = state.reply == nil && state.pending.isEmpty
                    }
                } catch {
                    state.parserFailed = true
                    state.pending.append(.reject(error))
                }
            }
        }
        for _ in 0..<readCount { events.requestRead() }
        if sendContinue { write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
    }

    /// The client closed its side: stop reading, finish what was asked, then close.
    private func peerDidClose() {
        let closeNow = state.withLock(owner: self) { state in
            state.peerClosed = true
            // A readable source at end of file fires forever; park it until close.
            if let source = state.readSource, !state.readSuspended {
                source.suspend()
                state.readSuspended = true
            }
            return state.phase == .lingering || state.holding
        }
        if closeNow { finalClose() }
    }

    // MARK: - Answering

    /// Starts the next queued reply when none is running; closes when the client left and all is answered.
    func pump() {
        dispatchPrecondition(condition: .onQueue(queue))
        while true {
            enum Action { case idle, close, answer(ParsedRequest), reject(HTTPParseError) }
            let action = state.withLock(owner: self) { state -> Action in
                guard state.phase == .open, state.reply == nil else { return .idle }
                guard !state.pending.isEmpty else { return state.peerClosed ? .close : .idle }
                switch state.pending.removeFirst() {
                case .answer(let request): return .answer(request)
                case .reject(let error): return .reject(error)
                }
            }
            let plan: ReplyPlan
            switch action {
            case .idle:
                return
            case .close:
                return beginClose()
            case .answer(let parsed):
                plan = ReplyPlan(handler(parsed.request), isHead: parsed.isHead, keepAlive: parsed.keepAlive)
            case .reject(let error):
                plan = ReplyPlan(.text(error.reason, status: error.status), isHead: false, keepAlive: false)
            }
            let started = state.withLock(owner: self) { state in
                guard state.phase == .open else { return false }
                state.reply = ActiveReply(steps: plan.steps, closesAfter: plan.closesAfter)
                return true
            }
            guard started, runSteps() else { return }
        }
    }

    /// Runs the active reply's steps until it pauses or ends.
    /// - Returns: `true` when the reply ended and the connection stays open for the next request.
    func runSteps() -> Bool {
        while true {
            enum Next { case stop, finished(closesAfter: Bool), step(ReplyStep), piece(Data, pause: Double) }
            let next = state.withLock(owner: self) { state -> Next in
                guard state.phase == .open, var reply = state.reply else { return .stop }
                if var stream = reply.stream {
                    // Back-pressure: produce more only once the client has taken most of what is queued.
                    if state.outbox.byteCount >= Self.streamHighWater {
                        state.awaitingDrain = true
                        return .stop
                    }
                    let piece = stream.next()
                    reply.stream = piece == nil || stream.isComplete ? nil : stream
                    state.reply = reply
                    if let piece { return .piece(piece, pause: stream.isComplete ? 0 : stream.interval) }
                }
                guard reply.next < reply.steps.count else {
                    state.reply = nil
                    return .finished(closesAfter: reply.closesAfter || state.peerClosed)
                }
                let step = reply.steps[reply.next]
                reply.next += 1
                if case .stream(let stream) = step { reply.stream = stream }
                state.reply = reply
                return .step(step)
            }
            switch next {
            case .stop:
                return false
            case .finished(let closesAfter):
                if closesAfter { beginClose() }
                return !closesAfter
            case .piece(let bytes, let pause):
                write(bytes)
                if pause > 0 {
                    resumeSteps(after: pause)
                    return false
                }
            case .step(.send(let bytes)):
                write(bytes)
            case .step(.stream):
                continue
            case .step(.wait(let seconds)):
                resumeSteps(after: seconds)
                return false
            case .step(.close):
                beginClose()
                return false
            case .step(.hold):
                let peerClosed = state.withLock(owner: self) { state in
                    state.holding = true
                    return state.peerClosed
                }
                if peerClosed { finalClose() }
                return false
            }
        }
    }

    /// Continues the active reply after a pause, then answers what is queued behind it.
    private func resumeSteps(after seconds: Double) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(seconds * 1e9))) { [weak self] in
            guard let self, runSteps() else { return }
            pump()
        }
    }
}
