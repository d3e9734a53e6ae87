import Dispatch

// Handlers that look at an outcome and pass it on: the toolkit PromiseKit and
// NIO users reach for. Like `catch` and `finally`, each takes
// `on queue: DispatchQueue? = nil` (`nil` runs the handler on the serial
// queue that runs this deferred's handlers) and, without a queue, shares
// that queue with the deferred it returns: one closure, no new queue.

extension Deferred {
    /// Observes the outcome, whatever it is; the outcome passes through
    /// unchanged.
    ///
    /// ```swift
    /// fetchUser(id).tap { result in log("fetched user: \(result)") }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; `nil` for the deferred's handler queue.
    ///   - body: Called with the value or the error (including
    ///     ``DeferredError/cancelled``) once this deferred settles. Not
    ///     called when the returned deferred was cancelled first.
    /// - Returns: A deferred settled exactly like this one, after `body` ran.
    @inlinable
    @discardableResult
    public func tap(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Deferred<Value> {
        guard let queue else {
            let next: Deferred<Value> = deriveShared()
            self.queue.async {
                guard let outcome = self.outcome(for: next) else { return }
                body(outcome)
                next.settle(outcome)
            }
            return next
        }
        return deriveAsynchronously(on: queue) { outcome, next in
            body(outcome)
            next.settle(outcome)
        }
    }

    /// Runs a side effect with the fulfilled value, which passes through.
    ///
    /// ```swift
    /// fetchUser(id).get { user in try cache.store(user) }.then { $0.name }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; `nil` for the deferred's handler queue.
    ///   - body: Called with the value once this deferred is fulfilled. Not
    ///     called when it is rejected: the error passes through.
    /// - Returns: A deferred fulfilled with this deferred's value after `body`
    ///   returned, or rejected with the error `body` threw or this deferred's.
    @inlinable
    @discardableResult
    public func get(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Deferred<Value> {
        guard let queue else {
            let next: Deferred<Value> = deriveShared()
            self.queue.async {
                guard let outcome = self.outcome(for: next) else { return }
                next.settle(Self.passing(outcome, through: body))
            }
            return next
        }
        return deriveAsynchronously(on: queue) { outcome, next in
            next.settle(Self.passing(outcome, through: body))
        }
    }

    /// Observes a rejection the policy admits; the outcome passes through
    /// unchanged.
    ///
    /// ```swift
    /// download.catch(policy: .allErrorsExceptCancellation) { error in
    ///     showAlert(error)   // not when the user pressed Cancel
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; `nil` for the deferred's handler queue.
    ///   - policy: ``CatchPolicy/allErrors`` behaves like
    ///     ``catch(on:_:)``; ``CatchPolicy/allErrorsExceptCancellation``
    ///     skips `body` for a cancellation (see ``CancellableError`` for
    ///     exactly which errors count).
    ///   - body: Called with the error if this deferred is rejected and
    ///     `policy` admits the error.
    /// - Returns: A deferred settled exactly like this one, after `body` ran.
    @inlinable
    @discardableResult
    public func `catch`(
        on queue: DispatchQueue? = nil,
        policy: CatchPolicy,
        _ body: @escaping @Sendable (any Error) -> Void
    ) -> Deferred<Value> {
        self.catch(on: queue) { error in
            if policy.admits(error) { body(error) }
        }
    }

    /// `outcome`, after `body` saw its value; a throw replaces it.
    @inlinable
    static func passing(
        _ outcome: Result<Value, any Error>,
        through body: (Value) throws -> Void
    ) -> Result<Value, any Error> {
        guard case .success(let value) = outcome else { return outcome }
        do {
            try body(value)
            return outcome
        } catch {
            return .failure(error)
        }
    }
}
