import LockSupport
import Dispatch

// Every handler method takes `on queue: DispatchQueue? = nil`. `nil` runs the
// handler on the serial queue that runs this deferred's handlers (never the
// main queue); a queue you pass runs it there instead.

extension Deferred {
    /// Transforms the fulfilled value.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; `nil` for the deferred's handler queue.
    ///   - body: Called with the value once this deferred is fulfilled. An error
    ///     it throws rejects the returned deferred. Not called when this
    ///     deferred is rejected (the error passes through) or when the returned
    ///     deferred was cancelled first.
    /// - Returns: A deferred settled with `body`'s result.
    @discardableResult
    public func then<U: Sendable>(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) throws -> U
    ) -> Deferred<U> {
        derive(on: queue) { outcome, next in
            switch outcome {
            case .success(let value): next.settle(Result { try body(value) })
            case .failure(let error): next.settle(.failure(error))
            }
        }
    }

    /// Chains an asynchronous step: the returned deferred follows the one
    /// `body` returns.
    ///
    /// Cancelling the returned deferred cancels the step in flight (if nothing
    /// else consumes it).
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; `nil` for the deferred's handler queue.
    ///   - body: Called with the value once this deferred is fulfilled. An
    ///     error it throws rejects the returned deferred.
    /// - Returns: A deferred settled like the one `body` returns.
    @discardableResult
    public func then<U: Sendable>(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) throws -> Deferred<U>
    ) -> Deferred<U> {
        deriveAsynchronously(on: queue) { outcome, next in
            switch outcome {
            case .success(let value):
                do { next.follow(try body(value)) } catch { next.settle(.failure(error)) }
            case .failure(let error):
                next.settle(.failure(error))
            }
        }
    }

    /// Observes a rejection; the outcome passes through unchanged.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; `nil` for the deferred's handler queue.
    ///   - body: Called with the error if this deferred is rejected (including
    ///     ``DeferredError/cancelled``).
    /// - Returns: A deferred settled exactly like this one, after `body` ran.
    @discardableResult
    public func `catch`(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (any Error) -> Void
    ) -> Deferred<Value> {
        derive(on: queue) { outcome, next in
            if case .failure(let error) = outcome { body(error) }
            next.settle(outcome)
        }
    }

    /// Replaces a rejection with a value.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; `nil` for the deferred's handler queue.
    ///   - body: Called with the error if this deferred is rejected; returns
    ///     the replacement value, or throws to keep the deferred rejected.
    /// - Returns: A deferred fulfilled with this deferred's value or `body`'s.
    @discardableResult
    public func recover(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Deferred<Value> {
        derive(on: queue) { outcome, next in
            switch outcome {
            case .success: next.settle(outcome)
            case .failure(let error): next.settle(Result { try body(error) })
            }
        }
    }

    /// Replaces a rejection with the outcome of another deferred.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; `nil` for the deferred's handler queue.
    ///   - body: Called with the error if this deferred is rejected; returns
    ///     the deferred to follow instead, or throws.
    /// - Returns: A deferred fulfilled with this deferred's value, or settled
    ///   like the one `body` returns.
    @discardableResult
    public func recover(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (any Error) throws -> Deferred<Value>
    ) -> Deferred<Value> {
        deriveAsynchronously(on: queue) { outcome, next in
            switch outcome {
            case .success:
                next.settle(outcome)
            case .failure(let error):
                do { next.follow(try body(error)) } catch { next.settle(.failure(error)) }
            }
        }
    }

    /// Runs `body` however this deferred settles; the outcome passes through.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; `nil` for the deferred's handler queue.
    ///   - body: Called once this deferred is fulfilled, rejected or cancelled.
    /// - Returns: A deferred settled exactly like this one, after `body` ran.
    @discardableResult
    public func finally(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable () -> Void
    ) -> Deferred<Value> {
        derive(on: queue) { outcome, next in
            body()
            next.settle(outcome)
        }
    }

    // MARK: - Derivation machinery

    /// Derives a deferred that `step` settles *synchronously*.
    ///
    /// Without a target queue the derived deferred shares this deferred's
    /// queue: `step` is enqueued there, and everything later enqueued for
    /// the derived deferred lands behind `step`, so it only runs once `step`
    /// has settled it. With a target queue, `step` runs elsewhere and the
    /// derived deferred needs a suspended queue of its own.
    func derive<U: Sendable>(
        on target: DispatchQueue?,
        _ step: @escaping @Sendable (Result<Value, any Error>, Deferred<U>) -> Void
    ) -> Deferred<U> {
        guard let target else {
            addConsumer()
            let next = Deferred<U>(sharing: queue, upstream: self)
            queue.async {
                // A derived deferred cancelled before its turn skips the work.
                if next.isPending { step(self.currentOutcome, next) }
            }
            return next
        }
        return deriveAsynchronously(on: target, step)
    }

    /// Derives a deferred with its own suspended queue, for steps that may
    /// settle it later (`follow`) or on another queue.
    func deriveAsynchronously<U: Sendable>(
        on target: DispatchQueue?,
        _ step: @escaping @Sendable (Result<Value, any Error>, Deferred<U>) -> Void
    ) -> Deferred<U> {
        addConsumer()
        let next = Deferred<U>(pendingWithUpstream: self)
        queue.async {
            let outcome = self.currentOutcome
            guard let target else {
                if next.isPending { step(outcome, next) }
                return
            }
            target.async {
                if next.isPending { step(outcome, next) }
            }
        }
        return next
    }

    /// Settles this deferred like `inner`, and makes `inner` the upstream
    /// that hears about cancellation from now on.
    func follow(_ inner: Deferred<Value>) {
        guard inner !== self else {
            // A step that returns its own result could never settle it.
            settle(.failure(DeferredError.abandoned))
            return
        }
        inner.addConsumer()
        let attached = state.withLock(owner: self) { state -> Bool in
            guard state.outcome == nil else { return false }
            state.upstream = inner
            return true
        }
        guard attached else {
            // Cancelled while the step was producing `inner`.
            inner.consumerGaveUp()
            return
        }
        inner.whenSettled { self.settle($0) }
    }
}
