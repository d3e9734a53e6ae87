import Foundation

// `suspend()` / `resume()`. A suspended request sends no attempt: the one
// about to go out waits in `waitingForResume`. The attempt in flight keeps
// its transfer, but its body's events are held (as for an `onHTTPResponse`
// disposition) and replayed in order on resume. A transport that waits for
// each chunk to be handled (AsyncHTTPClient) stops reading meanwhile; one
// that cannot be held back for one request (URLSession on Linux, whose own
// task suspension restarts the transfer) has what it sends held in memory,
// up to `holdLimit`.

extension RequestStateMachine {
    /// What a suspended stream or download holds in memory at most when its
    /// transport cannot be held back; past it the request fails.
    static let suspendedHoldLimit = 16 << 20

    enum SuspendAction: Sendable {
        /// Suspended (monitors hear `requestDidSuspend`); `inFlight`: the
        /// number of the attempt whose transfer is now held, if one is.
        case suspended(inFlight: Int?)
        /// Already suspended, or over.
        case none
    }

    /// initialized or running → suspended.
    mutating func suspend() -> SuspendAction {
        guard !isSuspended else { return .none }
        switch state {
        case .initialized:
            isSuspended = true
            return .suspended(inFlight: nil)
        case .running:
            isSuspended = true
            let inFlight = updateAttempt { attempt -> Int? in
                guard case .sending = attempt.phase else { return nil }
                if attempt.held == nil { attempt.held = [] }
                return attempt.number
            } ?? nil
            return .suspended(inFlight: inFlight)
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

    /// suspended → initialized or running, for `resume()`.
    mutating func unsuspend() -> UnsuspendAction {
        guard isSuspended else { return .notSuspended }
        isSuspended = false
        switch state {
        case .initialized:
            return .start
        case .running(let attempt):
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
