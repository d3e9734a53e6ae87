import NIOCore
import Synchronization

/// The idle timeouts of a transport's running attempts, kept by one
/// scheduled task rather than one per attempt.
///
/// An attempt fails with `URLError.timedOut` once nothing moved for its
/// idle timeout. A timer per attempt costs an event loop a scheduled task
/// (a heap entry and a closure) to start, and cancelling it searches the
/// loop's whole heap: with thousands of requests in flight that search ran
/// on every response. Here an attempt joins a table when it starts and
/// leaves it when it ends, and one sweep, scheduled for the earliest
/// deadline an attempt could have, fails the attempts that were idle for
/// their timeout and schedules itself again for the earliest deadline of
/// the rest. Activity moves an attempt's deadline later, never earlier, so
/// the sweep never comes too late; it only comes early, and then finds the
/// attempts busy and waits again.
final class IdleWatch: Sendable {
    private struct State {
        /// The running attempts, by identity.
        var attempts: [ObjectIdentifier: AsyncHTTPClientAttempt] = [:]
        /// The next sweep and when it runs.
        var sweep: (at: NIODeadline, task: Scheduled<Void>)?
    }

    private let state = Mutex(State())

    /// Watches `attempt`, whose idle deadline is now `deadline`, until
    /// ``unwatch(_:)``; a sweep that must come earlier is scheduled on `loop`.
    func watch(_ attempt: AsyncHTTPClientAttempt, until deadline: NIODeadline, on loop: any EventLoop) {
        state.withLock { state in
            state.attempts[ObjectIdentifier(attempt)] = attempt
            schedule(&state, at: deadline, on: loop)
        }
    }

    /// Stops watching `attempt` (it ended). The sweep stays scheduled: with
    /// no attempt left it does nothing and is not scheduled again.
    func unwatch(_ attempt: AsyncHTTPClientAttempt) {
        let removed = state.withLock { $0.attempts.removeValue(forKey: ObjectIdentifier(attempt)) }
        // Released outside the lock: an attempt's `deinit` must not run in it.
        withExtendedLifetime(removed) {}
    }

    /// Attempts being watched, for tests.
    var watchedCount: Int {
        state.withLock { $0.attempts.count }
    }

    /// Schedules the sweep for `deadline` unless one comes no later.
    private func schedule(_ state: inout State, at deadline: NIODeadline, on loop: any EventLoop) {
        if let sweep = state.sweep, sweep.at <= deadline { return }
        state.sweep?.task.cancel()
        state.sweep = (deadline, loop.scheduleTask(deadline: deadline) { self.sweep(on: loop) })
    }

    /// Fails the attempts idle for their timeout; drops the ended ones; runs
    /// again at the earliest deadline of the others.
    private func sweep(on loop: any EventLoop) {
        let attempts = state.withLock { state -> [AsyncHTTPClientAttempt] in
            state.sweep = nil
            return Array(state.attempts.values)
        }
        let now = NIODeadline.now()
        var next: NIODeadline?
        var finished: [ObjectIdentifier] = []
        for attempt in attempts {
            if let deadline = attempt.timeOutIfIdle(at: now) {
                next = min(next ?? deadline, deadline)
            } else {
                finished.append(ObjectIdentifier(attempt))
            }
        }
        state.withLock { state in
            for identifier in finished { state.attempts[identifier] = nil }
            if let next { schedule(&state, at: next, on: loop) }
        }
    }
}
