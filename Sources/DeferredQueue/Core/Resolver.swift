/// The producing side of a pending ``Deferred``: fulfils, rejects or
/// resolves it, and learns when it is cancelled.
///
/// Obtain one from ``Deferred/pending()``. Every method may be called from
/// any thread; only the first settlement counts, later ones are ignored.
///
/// ```swift
/// let (deferred, resolver) = Deferred<Data>.pending()
/// let task = startDownload { data in resolver.fulfill(data) }
/// resolver.onCancel { task.cancel() }
/// ```
///
/// - Important: The resolver *is* the producer. When the last reference to
///   it goes while its deferred is still pending, the deferred is rejected
///   with ``DeferredError/abandoned`` and its handlers run with that error —
///   no handler waits forever on a producer that no longer exists.
public final class Resolver<Value: Sendable>: Sendable {
    /// The deferred this resolver settles.
    public let deferred: Deferred<Value>

    @inlinable
    init(_ deferred: Deferred<Value>) {
        self.deferred = deferred
    }

    deinit {
        // Check first: nearly every resolver is released after it settled
        // its deferred, and abandoning is not free (see `abandon()`).
        if deferred.isPending {
            deferred.abandon()
        }
    }

    /// Fulfils the deferred with `value`.
    @inlinable
    public func fulfill(_ value: Value) {
        deferred.settle(.success(value))
    }

    /// Rejects the deferred with `error`.
    @inlinable
    public func reject(_ error: any Error) {
        deferred.settle(.failure(error))
    }

    /// Fulfils or rejects the deferred with `result`.
    @inlinable
    public func resolve(_ result: Result<Value, any Error>) {
        deferred.settle(result)
    }

    /// `true` while the deferred has not settled (it may have been cancelled
    /// meanwhile: check before doing expensive work).
    public var isPending: Bool {
        deferred.isPending
    }

    /// Registers `body` to run once if the deferred is cancelled.
    ///
    /// It runs synchronously inside the `cancel()` call (on the cancelling
    /// thread), so keep it short — typically cancelling the underlying work.
    /// If the deferred was already cancelled, `body` runs immediately; if it
    /// settled any other way, `body` is dropped.
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
        deferred.onGiveUp(body)
    }
}

extension Resolver where Value == Void {
    /// Fulfils a `Deferred<Void>`.
    public func fulfill() {
        fulfill(())
    }
}
