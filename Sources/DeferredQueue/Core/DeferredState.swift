import Synchronization

/// Something that derived from a deferred and may later lose interest in it.
///
/// A deferred counts the consumers derived from it (`then`, `catch`,
/// `timeout`, combinators…). When the last of them gives up — it was
/// cancelled, timed out, or lost a race — nobody can observe the upstream
/// result any more, so the upstream deferred is cancelled too and its
/// producer's `onCancel` hooks run (an HTTP request cancels its task).
@usableFromInline
protocol ConsumerLink: AnyObject, Sendable {
    /// One consumer of `self` no longer needs its result. The links that
    /// lose their last consumer as a result are appended to `work`, not
    /// told here: ``consumerGaveUp()`` tells them in a loop, so a chain of
    /// any length cannot exhaust the stack.
    func consumerGaveUp(into work: inout [any ConsumerLink])

    /// The one link `self` is waiting on, or `nil` when it waits on a
    /// producer (a resolver, a task), on several links, or on nothing. Only
    /// read by the cycle check of a flattening step (``Deferred/follow(_:)``),
    /// never on the hot path.
    var awaitedLink: (any ConsumerLink)? { get }
}

extension ConsumerLink {
    @usableFromInline
    var awaitedLink: (any ConsumerLink)? { nil }

    /// One consumer of `self` no longer needs its result: `self` and every
    /// link upstream that loses its last consumer in turn gives up.
    @usableFromInline
    func consumerGaveUp() {
        var work: [any ConsumerLink] = [self]
        while let link = work.popLast() { link.consumerGaveUp(into: &work) }
    }
}

/// The mutable state of one ``Deferred`` besides its outcome and its
/// upstream link, guarded by its `lock` (see ``Deferred/withState(_:)``).
///
/// Note what is *not* here: there is no list of handlers. Handlers wait as
/// blocks on the deferred's suspended serial queue. Nor the outcome: it
/// lives in the deferred's ``OutcomeStorage``, so that this type does not
/// depend on `Value` (a generic field costs a metadata lookup each time a
/// deferred is freed). Nor the upstream link: a `then` step reads it without
/// the lock (see ``Deferred/upstream``).
@usableFromInline
struct DeferredState {
    /// Producer hooks run when the deferred is cancelled (not handlers: they
    /// belong to the producing side and must run inside `cancel()`). `nil`
    /// rather than empty when there are none, which is nearly always: the
    /// empty array is a shared object that every deferred would otherwise
    /// release when settled and when freed, and fetch when created.
    ///
    /// Held by hand (see ``HeldCancelHooks``): freeing a deferred then
    /// destroys nothing here. Released by ``takeCancelHooks()``, or by
    /// ``releaseCancelHooks()`` in the deferred's `deinit`.
    @usableFromInline var cancelHooks: HeldCancelHooks

    @inlinable
    init() {
        cancelHooks = HeldCancelHooks()
    }

    /// Called once, by the settlement that stored the outcome: hands over
    /// the hooks the settling thread must run if it gives up. A settled
    /// deferred keeps none.
    @inlinable
    mutating func takeCancelHooks() -> [@Sendable () -> Void]? {
        cancelHooks.take()
    }

    /// Adds a hook for ``Deferred/onGiveUp(_:)``.
    @usableFromInline
    mutating func addCancelHook(_ hook: @escaping @Sendable () -> Void) {
        cancelHooks.append(hook)
    }

    /// For the deferred's `deinit`: releases hooks nobody took.
    mutating func releaseCancelHooks() {
        cancelHooks.release()
    }
}

/// The cancel hooks of one deferred (see ``DeferredState/cancelHooks``).
/// Touched only under that deferred's lock, or by its `deinit`.
@usableFromInline
final class CancelHooks {
    @usableFromInline var hooks: [@Sendable () -> Void]

    init(_ first: @escaping @Sendable () -> Void) {
        hooks = [first]
    }
}

/// Where a ``Deferred`` is in its one-way life, read and written atomically
/// (its `phase`): pending, then claimed by the settlement that won, then
/// settled one of three ways.
@usableFromInline
enum Phase: UInt8, Sendable {
    /// Not settled: no outcome stored.
    case pending = 0
    /// Settled with a value, held in the deferred's ``OutcomeStorage``.
    case fulfilled = 1
    /// Settled with an error, held in the deferred's ``OutcomeStorage``.
    case rejected = 2
    /// Settled with an error by giving up (cancelled, timed out): as
    /// ``rejected``, and the producer's cancel hooks ran.
    case gaveUp = 3
    /// Being settled: a settlement won (see ``Deferred/claim()``) and is
    /// storing the outcome, which it publishes with one of the values above.
    /// Still pending for ``Deferred/isPending``, so never read as settled
    /// from the deferred's queue; off it, see
    /// ``Deferred/outcomeOnceSettled()``.
    case claimed = 4
}

/// How many reads of ``Deferred/awaitedLink`` (the cycle check's walk) are
/// in progress, in the whole process: nearly always zero.
///
/// A `then` step's block settles its deferred without the lock, then
/// releases the parent held in `upstream`, which `awaitedLink` copies under
/// the lock while the deferred is pending. The block claims the settlement
/// and then reads this count; a reader counts itself and then reads the
/// phase (all sequentially consistent). If the block reads zero, every
/// reader that could still copy `upstream` counted itself later and so sees
/// the claim, and does not copy it. Otherwise the block releases under the
/// lock, which waits for a copy in progress.
@usableFromInline let cycleWalks = Atomic<Int>(0)

/// What the settling thread must do after releasing the lock.
///
/// Non-generic: a non-generic type needs no run-time metadata lookup on
/// every settlement.
@usableFromInline
struct DeferredSettlement {
    @usableFromInline var cancelHooks: [@Sendable () -> Void]?
    /// The link to tell when giving up, or to release.
    @usableFromInline var upstream: (any ConsumerLink)?

    @inlinable
    init(cancelHooks: [@Sendable () -> Void]?, upstream: (any ConsumerLink)?) {
        self.cancelHooks = cancelHooks
        self.upstream = upstream
    }
}
