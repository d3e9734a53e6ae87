import Dispatch

/// A one-shot timer that can be cancelled for good: the whole-request
/// deadline (a session's resource timeout).
///
/// A dispatch timer source rather than `asyncAfter`: a cancelled source
/// leaves the timer list at once, while a cancelled `asyncAfter` block would
/// stay queued until its (days-away) deadline, one per finished request.
final class RequestDeadline: Sendable {
    /// Dispatch sources are thread-safe (`cancel()` may be called from any
    /// thread, any number of times); the Dispatch overlay just does not mark
    /// the protocol `Sendable`.
    nonisolated(unsafe) private let source: any DispatchSourceTimer

    /// Arms the timer: `handler` runs on `queue` after `seconds`, unless cancelled first.
    init(seconds: Double, queue: DispatchQueue, handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: DispatchTime.after(seconds: seconds) ?? .distantFuture)
        source.setEventHandler(handler: handler)
        source.resume()
    }

    /// Cancels the timer; its handler will not run. Idempotent.
    func cancel() {
        source.cancel()
    }
}
