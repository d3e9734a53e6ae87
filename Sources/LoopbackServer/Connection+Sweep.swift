import Dispatch
import LockSupport

extension Connection {
    /// Reads or writes what a source left unreported, and replaces that source.
    ///
    /// A request on a connection whose read source never fired timed out in
    /// CI, as the listening socket's had before it (see ``Listener``): a lost
    /// epoll registration in libdispatch is suspected. The listener calls this
    /// once a second. A source that is armed (not parked by the connection
    /// itself) while its socket stayed ready from one sweep to the next, a
    /// second apart on this queue, without firing in between, missed its
    /// event: the sweep replaces it (``replaceSource(reading:_:)``), does
    /// what it missed and prints a line. A lost source then costs two seconds,
    /// never a hang. Callable from any thread.
    func sweep() {
        queue.async { [self] in sweepOnQueue() }
    }

    /// Whether the socket was ever too full for a write (a write source exists).
    var hasWaitedToWrite: Bool {
        state.withLock(owner: self) { $0.writeSource != nil }
    }

    /// Two looks closer together than this say nothing: the queue was busy, and a
    /// source's event may be waiting behind the sweep.
    private static let minimumSilence: UInt64 = 900_000_000

    private func sweepOnQueue() {
        let now = DispatchTime.now()
        // On the queue, where the descriptor is closed: it is open while `fdClosed` is false.
        let armed = state.withLock(owner: self) { state -> (read: Bool, write: Bool) in
            guard state.phase != .closed, !state.fdClosed else { return (false, false) }
            return (
                state.readSource != nil && !state.readSuspended,
                state.writeSource != nil && !state.writeSuspended
            )
        }
        let readReady = armed.read && Socket.isReadable(fd)
        let writeReady = armed.write && Socket.isWritable(fd)
        let missed = state.withLock(owner: self) { state -> (read: DispatchTime?, write: DispatchTime?) in
            /// `seen`: since when the socket has been ready with the source silent.
            func missedSince(_ ready: Bool, _ seen: inout DispatchTime?, _ reported: DispatchTime) -> DispatchTime? {
                guard ready else {
                    seen = nil
                    return nil
                }
                guard let since = seen, reported < since else {
                    seen = now
                    return nil
                }
                guard now.uptimeNanoseconds - since.uptimeNanoseconds >= Self.minimumSilence else { return nil }
                seen = nil
                return since
            }
            let read = missedSince(readReady, &state.readReadyAtSweep, state.readReported)
            let write = missedSince(writeReady, &state.writeReadyAtSweep, state.writeReported)
            if read != nil { replaceSource(reading: true, &state) }
            if write != nil { replaceSource(reading: false, &state) }
            return (read, write)
        }
        if let since = missed.read {
            report("read", silentSince: since, now: now)
            readable()
        }
        if let since = missed.write {
            report("write", silentSince: since, now: now)
            writable()
        }
    }

    private func report(_ kind: String, silentSince: DispatchTime, now: DispatchTime) {
        events.sourceMissed()
        let silence = (now.uptimeNanoseconds - silentSince.uptimeNanoseconds) / 1_000_000
        print("LoopbackServer: connection \(id) was ready to \(kind) for \(silence) ms without its \(kind) source reporting; the source was replaced")
    }
}
