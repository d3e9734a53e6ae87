import Dispatch
import LockSupport
import Synchronization

/// A one-shot timer that can be cancelled for good: the whole-request
/// deadline (a session's resource timeout).
///
/// A dispatch timer source rather than `asyncAfter`: a cancelled source
/// leaves the timer list at once, while a cancelled `asyncAfter` block would
/// stay queued until its (days-away) deadline, one per finished request.
final class RequestDeadline: Sendable {
    private let source: Mutex<(any DispatchSourceTimer)?>

    /// Arms the timer: `handler` runs on `queue` after `seconds`, unless cancelled first.
    init(seconds: Double, queue: DispatchQueue, handler: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: DispatchTime.after(seconds: seconds) ?? .distantFuture)
        timer.setEventHandler(handler: handler)
        timer.resume()
        source = Mutex(timer)
    }

    /// Cancels the timer; its handler will not run. Idempotent.
    func cancel() {
        let timer = source.withLock(owner: self) { source -> (any DispatchSourceTimer)? in
            defer { source = nil }
            return source
        }
        timer?.cancel()
    }
}
