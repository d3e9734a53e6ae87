import Dispatch
import LockSupport

extension Connection {
    // Sources are created and driven inside the lock, on the queue: they are
    // not Sendable, and none of their calls runs a handler synchronously.

    /// Creates and arms the read source on `descriptor`: `fd`, or a duplicate
    /// of it that the source's cancel handler closes.
    func installReadSource(_ state: inout State, on descriptor: Int32) {
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        state.readSource = source
        arm(source, on: descriptor, reading: true, &state)
    }

    /// Creates and arms the write source on `descriptor`, as ``installReadSource(_:on:)``.
    func installWriteSource(_ state: inout State, on descriptor: Int32) {
        let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
        state.writeSource = source
        arm(source, on: descriptor, reading: false, &state)
    }

    private func arm(_ source: some DispatchSourceProtocol, on descriptor: Int32, reading: Bool, _ state: inout State) {
        source.setEventHandler { [self] in
            let now = DispatchTime.now()
            self.state.withLock(owner: self) { state in
                if reading { state.readReported = now } else { state.writeReported = now }
            }
            if reading { readable() } else { writable() }
        }
        source.setCancelHandler { [self] in sourceCancelled(closing: descriptor) }
        state.liveSources += 1
        source.resume()
        guard descriptor == fd, reading ? silenced.read : silenced.write else { return }
        source.suspend()
        if reading { state.readSilenced = true } else { state.writeSilenced = true }
    }

    /// Replaces an armed source that missed an event with one on a duplicate
    /// descriptor: libdispatch keys its epoll bookkeeping by descriptor number,
    /// so a new source on the same number could inherit whatever lost the
    /// events. Without a descriptor to spare, the sweep keeps serving the old one.
    /// - Returns: Whether it was replaced.
    func replaceSource(reading: Bool, _ state: inout State) -> Bool {
        guard state.phase != .closed, let duplicate = Socket.duplicate(fd) else { return false }
        if reading, let old = state.readSource, !state.readSuspended {
            if state.readSilenced { old.resume() }
            state.readSilenced = false
            old.cancel()
            installReadSource(&state, on: duplicate)
        } else if !reading, let old = state.writeSource, !state.writeSuspended {
            if state.writeSilenced { old.resume() }
            state.writeSilenced = false
            old.cancel()
            installWriteSource(&state, on: duplicate)
        } else {
            Socket.close(duplicate)
            return false
        }
        return true
    }
}
