import LockSupport
import Dispatch
import Foundation

extension Connection {
    /// A reply ends the connection: flush what is queued, then linger.
    func beginClose() {
        let drained = state.withLock(owner: self) { state -> Bool in
            guard state.phase == .open else { return false }
            state.phase = .draining
            state.pending.removeAll()
            return state.outbox.isEmpty
        }
        if drained { startLingering() }
    }

    /// Everything is written: shut the write side and wait (briefly) for the client to close.
    func startLingering() {
        let peerClosed = state.withLock(owner: self) { state -> Bool? in
            guard state.phase == .draining else { return nil }
            state.phase = .lingering
            Socket.shutdown(fd, writeOnly: true)
            return state.peerClosed
        }
        guard let peerClosed else { return }
        if peerClosed { return finalClose() }
        queue.asyncAfter(deadline: .now() + Self.lingerSeconds) { [weak self] in self?.finalClose() }
    }

    /// Stops everything and releases the sources; the descriptor closes when every one is cancelled.
    func finalClose() {
        dispatchPrecondition(condition: .onQueue(queue))
        state.withLock(owner: self) { state in
            guard state.phase != .closed else { return }
            state.phase = .closed
            state.outbox.removeAll()
            state.pending.removeAll()
            state.reply = nil
            state.awaitingDrain = false
            state.parser = state.parser.reset()
            // A suspended source must be resumed before it is released, or libdispatch aborts.
            if state.readSuspended { state.readSource?.resume() }
            if state.writeSuspended { state.writeSource?.resume() }
            if state.readSilenced { state.readSource?.resume() }
            if state.writeSilenced { state.writeSource?.resume() }
            state.readSource?.cancel()
            state.writeSource?.cancel()
            state.readSource = nil
            state.writeSource = nil
            state.readSuspended = false
            state.writeSuspended = false
            state.readSilenced = false
            state.writeSilenced = false
        }
        closeDescriptorIfUnused()
    }

    /// Cancel handler of every source.
    /// - Parameter descriptor: the source's own descriptor, closed here unless it is `fd`.
    func sourceCancelled(closing descriptor: Int32) {
        if descriptor != fd { Socket.close(descriptor) }
        state.withLock(owner: self) { $0.liveSources -= 1 }
        closeDescriptorIfUnused()
    }

    /// Closes the descriptor once closed and no source uses it, then tells the server.
    func closeDescriptorIfUnused() {
        let closed = state.withLock(owner: self) { state -> Bool in
            guard state.phase == .closed, !state.fdClosed, state.liveSources == 0 else { return false }
            state.fdClosed = true
            // Under the lock, so forceClose() never shuts down a reused descriptor number.
            Socket.close(fd)
            return true
        }
        if closed { events.closed(id) }
    }
}
