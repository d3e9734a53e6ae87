/// Something that derived from a deferred and may later lose interest in it.
///
/// A deferred counts the consumers derived from it (`then`, `catch`,
/// `timeout`, combinators…). When the last of them gives up — it was
/// cancelled, timed out, or lost a race — nobody can observe the upstream
/// result any more, so the upstream deferred is cancelled too and its
/// producer's `onCancel` hooks run (an HTTP request cancels its task).
@usableFromInline
protocol ConsumerLink: AnyObject, Sendable {
    /// One consumer of `self` no longer needs its result.
    func consumerGaveUp()

    /// The one link `self` is waiting on, or `nil` when it waits on a
    /// producer (a resolver, a task), on several links, or on nothing. Only
    /// read by the cycle check of a flattening step (``Deferred/follow(_:)``),
    /// never on the hot path.
    var awaitedLink: (any ConsumerLink)? { get }
}

extension ConsumerLink {
    @usableFromInline
    var awaitedLink: (any ConsumerLink)? { nil }
}

/// The mutable state of one ``Deferred`` besides its outcome, guarded by its
/// `lock` (see ``Deferred/withState(_:)``).
///
/// Note what is *not* here: there is no list of handlers. Handlers wait as
/// blocks on the deferred's suspended serial queue. Nor the outcome: it
/// lives in the deferred's ``OutcomeStorage``, so that this type does not
/// depend on `Value` (a generic field costs a metadata lookup each time a
/// deferred is freed).
@usableFromInline
struct DeferredState {
    /// Producer hooks run when the deferred is cancelled (not handlers: they
    /// belong to the producing side and must run inside `cancel()`).
    @usableFromInline var cancelHooks: [@Sendable () -> Void] = []
    /// What this deferred consumes: told when this deferred gives up. Also
    /// what the cycle check walks (``ConsumerLink/awaitedLink``), so set it
    /// only to something this deferred really waits on.
    @usableFromInline var upstream: (any ConsumerLink)?

    @inlinable
    init(upstream: (any ConsumerLink)?) {
        self.upstream = upstream
    }

    /// Called once, by the settlement that stored the outcome: hands over
    /// what the settling thread must still do.
    @inlinable
    mutating func detach() -> DeferredSettlement {
        // Release producer hooks and the upstream link either way: a settled
        // deferred must not keep its chain alive.
        let settlement = DeferredSettlement(cancelHooks: cancelHooks, upstream: upstream)
        cancelHooks = []
        upstream = nil
        return settlement
    }
}

/// The values of ``Deferred``'s `phase`.
@usableFromInline
enum Phase {
    /// Not settled: no outcome stored.
    @usableFromInline static let pending: UInt8 = 0
    /// Settled with a value, held in the deferred's ``OutcomeStorage``.
    @usableFromInline static let fulfilled: UInt8 = 1
    /// Settled with an error, held in the deferred's ``OutcomeStorage``.
    @usableFromInline static let rejected: UInt8 = 2
    /// Settled with an error by giving up (cancelled, timed out): as
    /// ``rejected``, and the producer's cancel hooks ran.
    @usableFromInline static let gaveUp: UInt8 = 3
}

/// What the settling thread must do after releasing the lock.
///
/// Non-generic: a non-generic type needs no run-time metadata lookup on
/// every settlement.
@usableFromInline
struct DeferredSettlement {
    @usableFromInline var cancelHooks: [@Sendable () -> Void]
    @usableFromInline var upstream: (any ConsumerLink)?

    @inlinable
    init(cancelHooks: [@Sendable () -> Void], upstream: (any ConsumerLink)?) {
        self.cancelHooks = cancelHooks
        self.upstream = upstream
    }
}

/// A `then` step with its types erased (see ``Deferred/holdStep(_:after:)``):
/// `Any` in and out, so this type is already in its most general form and
/// keeps the bits of any step cast to it.
@usableFromInline
typealias ErasedStep = @Sendable (Any) throws -> Any
