import Foundation

// `suspend()` / `resume()`. A suspended request sends no attempt: the one
// about to go out waits in `waitingForResume`. The attempt in flight keeps
// its transfer, but its body's events are held (as for an `onHTTPResponse`
// disposition) and replayed in order on resume. A transport that waits for
// each chunk to be handled (AsyncHTTPClient) stops reading meanwhile; one
// that cannot be held back for one request (URLSession on Linux, whose own
// task suspension restarts the transfer) has what it sends held in memory,
// up to `holdLimit`.
//
// A request suspended while running stops keeping its session alive: it is
// still in the session's registry (so `withAllRequests` reaches it), but
// once nothing else holds the session, nothing can resume the request, and
// the session's `deinit` fails it instead of leaving it, its connection and
// what it held, until the resource timeout (days).

extension RequestStateMachine {
    /// What a suspended stream or download holds in memory at most when its
    /// transport cannot be held back; past it the request fails.
    static let suspendedHoldLimit = 16 << 20

    enum SuspendAction: Sendable {
        /// Suspended (monitors hear `requestDidSuspend`); `inFlight`: the
        /// number of the attempt whose transfer is now held, if one is;
        /// `releasing`: the session, no longer held (released after the lock).
        case suspended(inFlight: Int?, releasing: Session?)
        /// Already suspended, or over.
        case none
    }

    /// initialized or running → suspended.
    mutating func suspend() -> SuspendAction {
        guard !isSuspended else { return .none }
        switch state {
        case .initialized:
            // Not in the registry: it keeps its session until it is released.
            isSuspended = true
            return .suspended(inFlight: nil, releasing: nil)
        case .running:
            isSuspended = true
            let inFlight = updateAttempt { attempt -> Int? in
                guard case .sending = attempt.phase else { return nil }
                if attempt.held == nil { attempt.held = [] }
                return attempt.number
            } ?? nil
            defer { owner = nil }
            return .suspended(inFlight: inFlight, releasing: owner)
        case .finished, .cancelled:
            return .none
        case .modifying:
            preconditionFailure("state observed mid-transition")
        }
    }

    enum UnsuspendAction: Sendable {
        /// Not suspended: resume as usual.
        case notSuspended
        /// Was suspended before it started: start it now.
        case start
        /// Was suspended while running (monitors hear `requestDidResume`):
        /// on the callback queue, replay the events held for `attempt`,
        /// then run `work` (the attempt the suspension stopped), if any.
        case proceed(attempt: Int?, work: (@Sendable () -> Void)?)
    }

    /// suspended → initialized or running, for `resume()`; a running
    /// request holds `session` again (`nil` when it is being released: its
    /// `deinit` then fails the request).
    mutating func unsuspend(holding session: Session?) -> UnsuspendAction {
        guard isSuspended else { return .notSuspended }
        isSuspended = false
        switch state {
        case .initialized:
            return .start
        case .running(let attempt):
            owner = session
            defer { waitingForResume = nil }
            return .proceed(attempt: attempt.held == nil ? nil : attempt.number, work: waitingForResume)
        case .finished, .cancelled:
            return .notSuspended
        case .modifying:
            preconditionFailure("state observed mid-transition")
        }
    }

    /// Keeps `work` (sending the next attempt) for `resume()` when the
    /// request is suspended; `false`: go on now.
    mutating func waitIfSuspended(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard isSuspended, isRunning else { return false }
        waitingForResume = work
        return true
    }
}
