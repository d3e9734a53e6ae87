import NIOCore
import Synchronization

/// Bounds how far a request body streamed from a file runs ahead of the
/// socket: the producer waits while more than ``limit`` bytes it handed to
/// the client have not been written to the connection yet.
///
/// AsyncHTTPClient 1.37 should hold the producer back itself: the future of
/// each `StreamWriter.write` stays pending while the channel is not
/// writable. It does when the request runs on its connection's event loop.
/// When it does not (a kept-alive connection on another loop of the group),
/// the futures succeed at once, the producer reads on without yielding and
/// hands every piece over before the channel's loop can report it is full:
/// a file upload to a server slower than the disk queued the whole file in
/// memory (with raw AsyncHTTPClient too; not with a one-loop group). The
/// client reports each part once it was written to the socket
/// (`didSendRequestPart`), which this window counts.
///
/// The state sits behind `state`, the one lock.
final class RequestBodyWindow: Sendable {
    private struct State {
        var produced: Int64 = 0
        var sent: Int64 = 0
        /// Succeeds to let the producer read on; set while it is held back.
        var waiter: EventLoopPromise<Void>?
        var closed = false
    }

    /// The most bytes handed to the client and not yet written.
    let limit: Int64
    private let state = Mutex(State())

    init(limit: Int64 = 4 << 20) {
        self.limit = limit
    }

    /// The producer handed `count` more bytes to the client; the future
    /// succeeds when it may read the next piece.
    func produced(_ count: Int, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let waiter = state.withLock { state -> EventLoopPromise<Void>? in
            state.produced += Int64(count)
            guard !state.closed, state.produced - state.sent > limit else { return nil }
            let waiter = eventLoop.makePromise(of: Void.self)
            state.waiter = waiter
            return waiter
        }
        return waiter?.futureResult ?? eventLoop.makeSucceededVoidFuture()
    }

    /// The client wrote `count` more body bytes to the connection.
    func sent(_ count: Int) {
        let waiter = state.withLock { state -> EventLoopPromise<Void>? in
            state.sent += Int64(count)
            guard state.produced - state.sent <= limit / 2 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.succeed()
    }

    /// The attempt ended: a held-back producer goes on (its writes then
    /// fail) rather than waiting forever.
    func close() {
        let waiter = state.withLock { state -> EventLoopPromise<Void>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.succeed()
    }
}
