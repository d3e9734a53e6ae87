import LockSupport
import Dispatch
import Synchronization

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
    @inlinable
    @discardableResult
    public func then<U: Sendable>(
        on queue: DispatchQueue? = nil,
        _ body: __owned @escaping @Sendable (Value) throws -> U
    ) -> Deferred<U> {
        guard let queue else {
            // The hot path: the block captures `next` alone, which holds
            // this deferred and `body` until the block takes them, so the
            // handler allocates no closure context of its own.
            addConsumer()
            let next = Deferred<U>(sharing: self, step: consume body)
            self.queue.async { next.runStep(after: Value.self) }
            return next
        }
        return deriveAsynchronously(on: queue) { outcome, next in
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
    @inlinable
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
    @inlinable
    @discardableResult
    public func `catch`(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (any Error) -> Void
    ) -> Deferred<Value> {
        guard let queue else {
            let next: Deferred<Value> = deriveShared()
            self.queue.async {
                guard let outcome = self.outcome(for: next) else { return }
                if case .failure(let error) = outcome { body(error) }
                next.settle(outcome)
            }
            return next
        }
        return deriveAsynchronously(on: queue) { outcome, next in
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
    @inlinable
    @discardableResult
    public func recover(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Deferred<Value> {
        guard let queue else {
            let next: Deferred<Value> = deriveShared()
            self.queue.async {
                guard let outcome = self.outcome(for: next) else { return }
                switch outcome {
                case .success: next.settle(outcome)
                case .failure(let error): next.settle(Result { try body(error) })
                }
            }
            return next
        }
        return deriveAsynchronously(on: queue) { outcome, next in
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
    @inlinable
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
    @inlinable
    @discardableResult
    public func finally(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable () -> Void
    ) -> Deferred<Value> {
        guard let queue else {
            let next: Deferred<Value> = deriveShared()
            self.queue.async {
                guard let outcome = self.outcome(for: next) else { return }
                body()
                next.settle(outcome)
            }
            return next
        }
        return deriveAsynchronously(on: queue) { outcome, next in
            body()
            next.settle(outcome)
        }
    }

    // MARK: - Derivation machinery

    /// In the block enqueued on the parent's queue: takes the step held by
    /// ``init(sharing:step:)`` and settles this deferred with its result, or
    /// with the parent's error; then releases the parent. Skipped when this
    /// deferred was cancelled before its turn.
    ///
    /// The parent is `upstream`, read here without the lock: while this
    /// deferred is pending nothing else writes it. It is written here
    /// (released) only once this deferred is settled. Settled by this
    /// block, without the lock (``settleStep(_:)``), the release takes no
    /// lock either unless a cycle check is walking (see ``cycleWalks``);
    /// settled by a cancellation, it takes the lock, which the cancellation
    /// held while it copied the link.
    @inlinable
    func runStep<Parent: Sendable>(after _: Parent.Type) {
        guard !stepStorage.isEmpty else { return }
        var held = stepStorage
        stepStorage = StepStorage()
        let step = held.take((@Sendable (Parent) throws -> Value).self)
        var settledHere = false
        if isPending {
            // Borrowed, not copied: `upstream` keeps the parent alive until
            // the end of this block.
            let outcome = parentOutcome(Parent.self)
            switch outcome {
            case .success(let value): settledHere = settleStep(Result { try step(value) })
            case .failure(let error): settledHere = settleStep(.failure(error))
            }
        }
        // Settled now, by the step or by a cancellation: a settled deferred
        // must not keep its chain alive.
        if settledHere, cycleWalks.load(ordering: .sequentiallyConsistent) == 0 {
            upstream = nil
        } else {
            // Moved out under the lock, released after it: the parent's
            // `deinit` (a whole settled chain's, a `Value`'s) must not run
            // inside this deferred's critical section, where a `cancel()`
            // of this deferred would take the lock again.
            let parent = lock.withLock(owner: self) { _ -> (any ConsumerLink)? in
                defer { upstream = nil }
                return upstream
            }
            withExtendedLifetime(parent) {}
        }
    }

    /// A consumer of this deferred that a block on this deferred's queue
    /// will settle *synchronously*, so it shares the queue: everything later
    /// enqueued for it lands behind that block, and only runs once the block
    /// has settled it. (With a target queue, the step runs elsewhere and the
    /// derived deferred needs a suspended queue of its own: see
    /// ``deriveAsynchronously(on:_:)``.)
    ///
    /// The caller enqueues the settling block on ``queue`` right away.
    @inlinable
    func deriveShared<U: Sendable>() -> Deferred<U> {
        addConsumer()
        return Deferred<U>(sharing: queue, upstream: self)
    }

    /// Inside a block on this deferred's queue: this deferred's outcome for
    /// the step that settles `next`, or `nil` when `next` was cancelled before
    /// its turn (the step is then skipped).
    @inlinable
    func outcome<U: Sendable>(for next: Deferred<U>) -> Result<Value, any Error>? {
        next.isPending ? currentOutcome : nil
    }

    /// Derives a deferred with its own suspended queue, for steps that may
    /// settle it later (`follow`) or on another queue.
    @inlinable
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
}
