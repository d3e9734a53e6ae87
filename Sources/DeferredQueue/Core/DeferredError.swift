/// The errors ``Deferred`` itself produces.
///
/// Errors thrown by your own closures pass through unchanged; these cases
/// describe what the executor decided on its own.
public enum DeferredError: Error, Sendable, CustomStringConvertible {
    /// The producing side (executor closures, ``Resolver``, request) was
    /// released while the deferred was still pending, so nothing can ever
    /// settle it.
    case abandoned
    /// ``Deferred/cancel()`` was called (directly, by an awaiting `Task` being
    /// cancelled, or because every consumer derived from it gave up).
    case cancelled
    /// ``Deferred/timeout(_:)`` elapsed before the upstream deferred settled.
    case timedOut
    /// Every input of ``Deferred/any(_:)`` was rejected; the errors are in input order.
    case allRejected([any Error])
    /// The deferred was resolved with itself: a flattening step (``Deferred/then(on:_:)-(_,(Value)->Deferred<U>)``
    /// or ``Deferred/recover(on:_:)-(_,(Error)->Deferred<Value>)``) returned a
    /// deferred that waits, directly or through a chain, on the very deferred
    /// it was meant to settle.
    case cycle

    /// `true` for ``cancelled``.
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .abandoned:
            return "The deferred was abandoned: its producer (resolver, executor or request) was released before settling it."
        case .cancelled:
            return "The deferred was cancelled."
        case .timedOut:
            return "The deferred timed out before it settled."
        case .allRejected(let errors):
            if errors.isEmpty { return "Deferred.any was given no inputs, so none could be fulfilled." }
            let list = errors.map { "\($0)" }.joined(separator: "; ")
            return "All \(errors.count) deferreds were rejected: \(list)"
        case .cycle:
            return "The deferred was resolved with itself: a then/recover step returned a deferred that waits on the one it was settling, so neither could ever settle. Return a deferred that does not depend on the step's own result."
        }
    }
}

extension DeferredError: CancellableError {}
