#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Dispatch
import LockSupport
import Synchronization

/// The listening socket and the registry of open connections behind a ``LoopbackServer``.
///
/// ## Threading
/// Connections are accepted on `acceptQueue` (a serial ``DispatchQueue/serverQueue(label:)``) by a
/// read source on the listening socket, and by a sweep once a second that
/// accepts a connection the source left waiting since the sweep before:
/// every request to a server whose source never fired timed out in CI (a
/// lost epoll registration in libdispatch is suspected), and the sweep turns
/// that into a delay of two seconds at most, with a printed line, and
/// replaces the source with one on a duplicate descriptor. The same
/// sweep asks every open connection to look for what its own sources missed
/// (``Connection/sweep()``). Each accepted connection gets its own
/// serial queue (see ``Connection``). Counters and the registry are in
/// ``state``; ``shutdown()`` may be called from any thread except `acceptQueue`.
final class Listener: Sendable {
    private let listenFD: Int32
    private let handler: RequestHandler
    /// Copied into every connection.
    private let parser: HTTPRequestParser
    private let acceptQueue: DispatchQueue
    /// Signalled by the accept source's cancel handler, once the listening socket is closed.
    private let listenerClosed = DispatchSemaphore(value: 0)
    private let state = Mutex(State())

    private struct State {
        var source: (any DispatchSourceRead)?
        /// Sources created and not yet through their cancel handlers: the
        /// listening socket closes once shut down and none is left.
        var liveSources = 0
        /// Accepts what `source` has not reported.
        var sweep: (any DispatchSourceTimer)?
        /// When `source` last fired.
        var sourceFired = DispatchTime.now()
        /// When the sweep last found a connection waiting, if it did.
        var pendingAtSweep: DispatchTime?
        /// Accepting is paused after running out of descriptors.
        var acceptPaused = false
        /// The source is suspended for a test, as if its events were lost.
        var sourceSilenced = false
        /// Connections accepted from now on start with these sources silenced (for a test).
        var silencedConnectionSources = Connection.SilencedSources()
        var isShutDown = false
        var connections: [Int: Connection] = [:]
        var nextID = 0
        var connectionCount = 0
        var requestCount = 0
        var missedSourceEvents = 0
        /// Connections the sweep accepted because the source had not reported them.
        var sweptConnections = 0
        /// The sweep stops once a connection's sweep replaced a source (for a test).
        var stopsSweepAfterMiss = false
    }

    /// Takes ownership of a listening, non-blocking socket.
    init(listenFD: Int32, port: Int, parser: HTTPRequestParser, handler: @escaping RequestHandler) {
        self.listenFD = listenFD
        self.parser = parser
        self.handler = handler
        self.acceptQueue = .serverQueue(label: "LoopbackServer.accept.\(port)")
    }

    /// Starts accepting connections.
    func start() {
        state.withLock(owner: self) { state in
            installSource(&state, on: listenFD)
            let sweep = DispatchSource.makeTimerSource(queue: acceptQueue)
            sweep.schedule(deadline: .now() + Self.sweepInterval, repeating: Self.sweepInterval)
            sweep.setEventHandler { [self] in sweepPending() }
            state.sweep = sweep
            sweep.resume()
        }
    }

    /// Creates and arms the read source on `descriptor`: `listenFD`, or a
    /// duplicate of it that the source's cancel handler closes. Sources are
    /// created and driven inside the lock: they are not Sendable, and none of
    /// their calls runs a handler synchronously.
    private func installSource(_ state: inout State, on descriptor: Int32) {
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: acceptQueue)
        source.setEventHandler { [self] in
            self.state.withLock(owner: self) { $0.sourceFired = DispatchTime.now() }
            _ = acceptPending()
        }
        source.setCancelHandler { [self] in sourceCancelled(closing: descriptor) }
        state.source = source
        state.liveSources += 1
        source.resume()
    }

    /// Cancel handler of every source: closes its own descriptor, and the
    /// listening socket once shut down and no source watches it.
    private func sourceCancelled(closing descriptor: Int32) {
        if descriptor != listenFD { Socket.close(descriptor) }
        let closeListener = state.withLock(owner: self) { state in
            state.liveSources -= 1
            return state.isShutDown && state.liveSources == 0
        }
        guard closeListener else { return }
        Socket.close(listenFD)
        listenerClosed.signal()
    }

    /// Replaces a source that missed connections with one on a duplicate
    /// descriptor: libdispatch keys its epoll bookkeeping by descriptor
    /// number, so a new source on the same number could inherit whatever
    /// lost the events. Without a descriptor to spare, the sweep goes on alone.
    /// - Returns: Whether it was replaced.
    private func replaceSource() -> Bool {
        state.withLock(owner: self) { state in
            // The replacement starts a new watch: what waits now is its to report.
            state.pendingAtSweep = nil
            guard !state.isShutDown, !state.acceptPaused, let old = state.source,
                let duplicate = Socket.duplicate(listenFD)
            else { return false }
            if state.sourceSilenced { old.resume() }
            state.sourceSilenced = false
            old.cancel()
            installSource(&state, on: duplicate)
            return true
        }
    }

    /// How often the sweep looks for connections the source did not report.
    private static let sweepInterval = DispatchTimeInterval.seconds(1)

    /// Accepts the connections waiting in the backlog, and says so, when one
    /// already waited at the sweep before and the source stayed silent since.
    /// A connection that arrived just now is left to the source, whose event
    /// may be on its way: accepting it here would report a silence that was not.
    private func sweepPending() {
        let open = state.withLock(owner: self) { $0.isShutDown ? [] : Array($0.connections.values) }
        for connection in open { connection.sweep() }
        let now = DispatchTime.now()
        let waiting = Socket.hasPendingConnection(listenFD)
        let silentSince = state.withLock(owner: self) { state -> DispatchTime? in
            guard !state.isShutDown, !state.acceptPaused else {
                state.pendingAtSweep = nil
                return nil
            }
            defer { state.pendingAtSweep = waiting ? now : nil }
            guard waiting, let seen = state.pendingAtSweep, state.sourceFired < seen else { return nil }
            return state.sourceFired
        }
        guard let silentSince else { return }
        // Accepted before the replacement exists: a new source reports at
        // once what waits, and could take these first (then counted as no
        // sweep, with the silence unreported).
        let accepted = acceptPending()
        let replaced = replaceSource()
        if accepted > 0 {
            state.withLock(owner: self) { $0.sweptConnections += accepted }
            let silence = (now.uptimeNanoseconds - silentSince.uptimeNanoseconds) / 1_000_000
            print(
                "LoopbackServer: accepted \(accepted) connection(s) the listening socket's read source had not reported for \(silence) ms; "
                    + (replaced ? "the source was replaced" : "no descriptor to replace the source with")
            )
        }
    }

    var connectionCount: Int { state.withLock(owner: self) { $0.connectionCount } }
    var openConnectionCount: Int { state.withLock(owner: self) { $0.connections.count } }
    var requestCount: Int { state.withLock(owner: self) { $0.requestCount } }
    var missedSourceEvents: Int { state.withLock(owner: self) { $0.missedSourceEvents } }
    var sweptConnections: Int { state.withLock(owner: self) { $0.sweptConnections } }
    var someConnectionWaitsToWrite: Bool {
        state.withLock(owner: self) { Array($0.connections.values) }.contains { $0.hasWaitedToWrite }
    }

    /// Closes the listening socket (waiting until it is closed, so new
    /// connections are refused when this returns) and every open connection.
    /// Idempotent.
    func shutdown() {
        let connections = state.withLock(owner: self) { state -> [Connection]? in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            // A suspended source must be resumed before it is released, or libdispatch aborts.
            if state.acceptPaused { state.source?.resume() }
            if state.sourceSilenced { state.source?.resume() }
            state.acceptPaused = false
            state.sourceSilenced = false
            // The sweep first: it must not accept on the descriptor once the last source's cancel handler closed it.
            state.sweep?.cancel()
            state.sweep = nil
            state.source?.cancel()
            state.source = nil
            return Array(state.connections.values)
        }
        guard let connections else { return }
        _ = listenerClosed.wait(timeout: .now() + 5)
        for connection in connections { connection.forceClose() }
    }

    /// Suspends the listening socket's read source, as if its events were
    /// lost, until the sweep replaces it (for a test of the sweep).
    func silenceSource() {
        state.withLock(owner: self) { state in
            guard !state.isShutDown, !state.sourceSilenced else { return }
            state.sourceSilenced = true
            state.source?.suspend()
        }
    }

    /// Stops the sweep, so only the read source accepts from now on (for a
    /// test that the source the sweep installed reports connections). Not
    /// on `acceptQueue`: it waits for that queue.
    func stopSweep() {
        state.withLock(owner: self) { state in
            state.sweep?.cancel()
            state.sweep = nil
        }
        // Cancelling does not stop a sweep already running, which accepts
        // until the backlog is empty: a connection made right after this
        // returned would be counted as swept. Wait for that sweep to end.
        acceptQueue.sync {}
    }

    /// Stops the sweep once a connection's sweep has replaced a source, so
    /// only the replacement serves that connection afterwards (for a test).
    func stopSweepAfterMiss() {
        state.withLock(owner: self) { $0.stopsSweepAfterMiss = true }
    }

    /// Makes the read or write sources of every connection accepted from now
    /// on lose their events: only the sweep serves them (for a test of the sweep).
    func silenceConnectionSources(read: Bool, write: Bool) {
        state.withLock(owner: self) { $0.silencedConnectionSources = Connection.SilencedSources(read: read, write: write) }
    }

    /// Accepts the waiting connections (256 at most); returns how many.
    private func acceptPending() -> Int {
        var accepted = 0
        for _ in 0..<256 {
            let fd = Socket.accept(listenFD)
            if fd >= 0 {
                register(fd)
                accepted += 1
                continue
            }
            switch -fd {
            case EAGAIN, EWOULDBLOCK:
                return accepted
            case ECONNABORTED, EINTR, EPROTO, EPERM:
                continue
            default:
                // EMFILE, ENFILE, ENOBUFS, ENOMEM: the pending connection stays queued and the
                // source would fire at once again; pause briefly instead of spinning.
                pauseAccepting()
                return accepted
            }
        }
        return accepted
    }

    private func register(_ fd: Int32) {
        let connection = state.withLock(owner: self) { state -> Connection? in
            guard !state.isShutDown else { return nil }
            state.nextID += 1
            state.connectionCount += 1
            let events = Connection.Events(
                requestRead: { [self] in self.state.withLock(owner: self) { $0.requestCount += 1 } },
                closed: { [self] id in _ = self.state.withLock(owner: self) { $0.connections.removeValue(forKey: id) } },
                sourceMissed: { [self] in
                    self.state.withLock(owner: self) { state in
                        state.missedSourceEvents += 1
                        guard state.stopsSweepAfterMiss else { return }
                        state.sweep?.cancel()
                        state.sweep = nil
                    }
                }
            )
            let connection = Connection(
                id: state.nextID, fd: fd, parser: parser, handler: handler, events: events,
                silenced: state.silencedConnectionSources
            )
            state.connections[state.nextID] = connection
            return connection
        }
        guard let connection else { return Socket.close(fd) }
        connection.start()
    }

    private func pauseAccepting() {
        state.withLock(owner: self) { state in
            guard !state.isShutDown, !state.acceptPaused else { return }
            state.acceptPaused = true
            state.source?.suspend()
        }
        acceptQueue.asyncAfter(deadline: .now() + 0.1) { [self] in
            state.withLock(owner: self) { state in
                guard state.acceptPaused else { return }
                state.acceptPaused = false
                state.source?.resume()
            }
        }
    }
}
