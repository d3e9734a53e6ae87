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
/// Connections are accepted on `acceptQueue` (a serial queue of its own) by a
/// read source on the listening socket. Each accepted connection gets its own
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
        /// Accepting is paused after running out of descriptors.
        var acceptPaused = false
        var isShutDown = false
        var connections: [Int: Connection] = [:]
        var nextID = 0
        var connectionCount = 0
        var requestCount = 0
    }

    /// Takes ownership of a listening, non-blocking socket.
    init(listenFD: Int32, port: Int, parser: HTTPRequestParser, handler: @escaping RequestHandler) {
        self.listenFD = listenFD
        self.parser = parser
        self.handler = handler
        self.acceptQueue = DispatchQueue(label: "LoopbackServer.accept.\(port)")
    }

    /// Starts accepting connections.
    func start() {
        state.withLock(owner: self) { state in
            // Sources are created and driven inside the lock: they are not Sendable, and
            // none of their calls runs a handler synchronously.
            let source = DispatchSource.makeReadSource(fileDescriptor: listenFD, queue: acceptQueue)
            source.setEventHandler { [self] in acceptPending() }
            source.setCancelHandler { [self] in
                Socket.close(listenFD)
                listenerClosed.signal()
            }
            state.source = source
            source.resume()
        }
    }

    var connectionCount: Int { state.withLock(owner: self) { $0.connectionCount } }
    var openConnectionCount: Int { state.withLock(owner: self) { $0.connections.count } }
    var requestCount: Int { state.withLock(owner: self) { $0.requestCount } }

    /// Closes the listening socket (waiting until it is closed, so new
    /// connections are refused when this returns) and every open connection.
    /// Idempotent.
    func shutdown() {
        let connections = state.withLock(owner: self) { state -> [Connection]? in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            // A suspended source must be resumed before it is released, or libdispatch aborts.
            if state.acceptPaused { state.source?.resume() }
            state.acceptPaused = false
            state.source?.cancel()
            state.source = nil
            return Array(state.connections.values)
        }
        guard let connections else { return }
        _ = listenerClosed.wait(timeout: .now() + 5)
        for connection in connections { connection.forceClose() }
    }

    private func acceptPending() {
        for _ in 0..<256 {
            let fd = Socket.accept(listenFD)
            if fd >= 0 {
                register(fd)
                continue
            }
            switch -fd {
            case EAGAIN, EWOULDBLOCK:
                return
            case ECONNABORTED, EINTR, EPROTO, EPERM:
                continue
            default:
                // EMFILE, ENFILE, ENOBUFS, ENOMEM: the pending connection stays queued and the
                // source would fire at once again; pause briefly instead of spinning.
                return pauseAccepting()
            }
        }
    }

    private func register(_ fd: Int32) {
        let connection = state.withLock(owner: self) { state -> Connection? in
            guard !state.isShutDown else { return nil }
            state.nextID += 1
            state.connectionCount += 1
            let events = Connection.Events(
                requestRead: { [self] in self.state.withLock(owner: self) { $0.requestCount += 1 } },
                closed: { [self] id in _ = self.state.withLock(owner: self) { $0.connections.removeValue(forKey: id) } }
            )
            let connection = Connection(id: state.nextID, fd: fd, parser: parser, handler: handler, events: events)
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
