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
        typealias Miss = (since: DispatchTime, replaced: Bool)
        let missed = state.withLock(owner: self) { state -> (read: Miss?, write: Miss?) in
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
            return (
                read.map { ($0, replaceSource(reading: true, &state)) },
                write.map { ($0, replaceSource(reading: false, &state)) }
            )
        }
        if let miss = missed.read {
            report("read", miss, now: now)
            readable()
        }
        if let miss = missed.write {
            report("write", miss, now: now)
            writable()
        }
    }

    private func report(_ kind: String, _ miss: (since: DispatchTime, replaced: Bool), now: DispatchTime) {
        events.sourceMissed()
        let silence = (now.uptimeNanoseconds - miss.since.uptimeNanoseconds) / 1_000_000
        let outcome = miss.replaced ? "the source was replaced" : "no descriptor to replace the source with"
        print("LoopbackServer: connection \(id) was ready to \(kind) for \(silence) ms without its \(kind) source reporting; \(outcome)")
    }
}
