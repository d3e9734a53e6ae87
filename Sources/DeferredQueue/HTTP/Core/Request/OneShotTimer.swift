import Dispatch
import LockSupport
import Synchronization

/// Runs a handler once at a deadline, unless cancelled first; cancelling
/// releases the handler at once (a dispatch `asyncAfter` would hold it, and
/// what it captures, until the deadline, days away for a resource timeout).
final class OneShotTimer: Sendable {
    private struct State {
        var source: (any DispatchSourceTimer)?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Starts the timer; does nothing once it was cancelled.
    func start(at deadline: DispatchTime, on queue: DispatchQueue, _ handler: @escaping @Sendable () -> Void) {
        state.withLock(owner: self) { state in
            guard !state.cancelled else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: deadline)
            source.setEventHandler(handler: handler)
            source.resume()
            state.source = source
        }
    }

    func cancel() {
        state.withLock(owner: self) { state -> (any DispatchSourceTimer)? in
            state.cancelled = true
            return state.source.take()
        }?.cancel()
    }
}
