import Dispatch

extension Deferred {
    /// Settles like this deferred, or rejects with ``DeferredError/timedOut``
    /// if it has not settled within `seconds`.
    ///
    /// On timeout, this deferred is released as a consumer: if nothing else
    /// consumes it, it is cancelled (a request's task is cancelled).
    ///
    /// - Parameter seconds: The limit; negative or NaN counts as zero,
    ///   infinity never times out.
    @inlinable
    public func timeout(_ seconds: Double) -> Deferred<Value> {
        addConsumer()
        let next = Deferred(pendingWithUpstream: self)
        whenSettled { next.settle($0) }
        if let deadline = DispatchTime.after(seconds: seconds) {
            // Weak: a deferred settled long before its deadline is not kept
            // alive by the timer.
            DispatchQueue.global().asyncAfter(deadline: deadline) { [weak next] in
                next?.settle(.failure(DeferredError.timedOut), givingUp: true)
            }
        }
        return next
    }

    /// Settles like this deferred, `seconds` after it settled.
    ///
    /// - Parameter seconds: The delay; negative or NaN counts as zero.
    @inlinable
    public func delay(_ seconds: Double) -> Deferred<Value> {
        addConsumer()
        let next = Deferred(pendingWithUpstream: self)
        whenSettled { outcome in
            let deadline = DispatchTime.after(seconds: seconds) ?? .distantFuture
            DispatchQueue.global().asyncAfter(deadline: deadline) { next.settle(outcome) }
        }
        return next
    }
}
