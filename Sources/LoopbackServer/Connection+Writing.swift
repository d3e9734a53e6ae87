import Dispatch
import Foundation
import LockSupport

extension Connection {
    // MARK: - Writing

    /// Queues bytes and writes what the socket takes now.
    func write(_ bytes: Data) {
        let progress = state.withLock(owner: self) { state -> Outbox.Progress? in
            guard state.phase == .open || state.phase == .draining else { return nil }
            let wasEmpty = state.outbox.isEmpty
            state.outbox.append(bytes)
            return wasEmpty ? state.outbox.write(to: fd) : .blocked
        }
        if let progress { handle(progress) }
    }

    /// Writes what the socket takes; run by the write source, or by ``sweep()`` when the source missed it.
    func writable() {
        let progress = state.withLock(owner: self) { state -> Outbox.Progress? in
            guard state.phase == .open || state.phase == .draining else { return nil }
            return state.outbox.write(to: fd)
        }
        if let progress { handle(progress) }
    }

    private func handle(_ progress: Outbox.Progress) {
        switch progress {
        case .failed:
            finalClose()
        case .blocked:
            state.withLock(owner: self) { state in
                if let source = state.writeSource {
                    if state.writeSuspended {
                        state.writeSuspended = false
                        source.resume()
                    }
                } else {
                    // Created on first need; only reached from a write on this queue while
                    // open or draining, so the descriptor is valid.
                    installWriteSource(&state, on: fd)
                }
            }
        case .drained:
            let linger = state.withLock(owner: self) { state in
                // The write source stays suspended while there is nothing to write.
                if let source = state.writeSource, !state.writeSuspended {
                    source.suspend()
                    state.writeSuspended = true
                }
                return state.phase == .draining
            }
            if linger { startLingering() }
            let resume = state.withLock(owner: self) { state in
                defer { state.awaitingDrain = false }
                return state.awaitingDrain
            }
            if resume, runSteps() { pump() }
        }
    }
}
