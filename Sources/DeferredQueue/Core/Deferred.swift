import Dispatch
import LockSupport
import Synchronization

/// A value that will be available later — a promise whose handlers wait on a
/// suspended serial `DispatchQueue`.
///
/// ## The execution model
///
/// A pending deferred owns a serial `DispatchQueue` that was created
/// suspended. Registering a handler (``then(on:_:)-(_,(Value)->U)``,
/// ``catch(on:_:)``, ``finally(on:_:)``, `await value` …) is nothing more
/// than `queue.async { handler(outcome) }`: the block waits in the queue.
/// When the deferred settles, its outcome is stored once and the queue is
/// resumed exactly once, so every waiting handler runs, in registration
/// order, with no handler array anywhere. A handler registered after
/// settlement goes through the same (now running) queue, so it still runs
/// after the earlier ones.
///
/// ```
///  register      register      settle            queue drains
///  then { A }    catch { B }   fulfill(42) ───▶  A(42) ─▶ B passes ─▶ …
///      │             │            │
///      ▼             ▼            ▼
///  [ queue (suspended): A, B ]  outcome = 42, queue.resume()  (once)
/// ```
///
/// A derived deferred that settles synchronously inside its parent's handler
/// (`then`, `catch`, `recover`, `finally` without `on:`) shares its parent's
/// queue: its handlers are enqueued behind the block that settles it, so a
/// three-step chain costs one queue, not four.
///
/// ## Guarantees
///
/// * A deferred settles at most once: the first fulfil / reject / cancel wins.
/// * Handlers never run before it settles and never synchronously inside the
///   call that registers them; each runs exactly once, in registration order.
/// * Dropping is safe: a pending deferred whose producer is released settles
///   with ``DeferredError/abandoned``. (Releasing a suspended queue is fatal
///   in libdispatch — on this project's Linux toolchain the process dies with
///   "Illegal instruction" in `_dispatch_queue_xref_dispose` — so the queue
///   is always resumed before the last reference to it goes.)
/// * Chains you do not keep still run (fire and forget); settled chains are
///   freed once their handlers ran.
///
/// ## Threading
///
/// By default a handler runs on the deferred's serial handler queue, which
/// targets `DispatchQueue.global()` — never the main queue. Every deferred's
/// queue shares that pool, which GCD sizes to the cores: a burst of ten
/// thousand settled deferreds runs on about as many threads as there are
/// cores, not one thread each, and other queues of the process do not wait
/// behind it. Pass `on: someQueue` to run a handler elsewhere; handlers are
/// then *dispatched* in registration order, but handlers on different queues
/// may overlap.
///
/// A handler that blocks — sleeps, waits on a semaphore, reads a file
/// synchronously — holds one of those few threads while it waits; GCD adds
/// threads only slowly (on Linux, about one a second). Run blocking work
/// with `on:` a queue of your own.
///
/// - Warning: A handler must not block waiting for a later handler of the
///   same deferred (or of a deferred derived from it without `on:`): they
///   run one after another on the same serial queue, so that wait never ends.
public final class Deferred<Value: Sendable>: Sendable {
    // The members used by the hot path (creating, chaining, settling) are
    // `@inlinable`/`@usableFromInline`: a client specialises them for its
    // concrete `Value`, which saves the run-time generic metadata lookups an
    // unspecialised chain makes on every step (see BENCHMARKS.md).

    /// The serial queue that holds and runs this deferred's handlers.
    @usableFromInline let queue: DispatchQueue
    /// How this deferred lets `queue` run when it settles: resumes it
    /// (created suspended), activates it (created inactive), or nothing
    /// (created settled, or sharing its parent's queue, which the parent
    /// releases).
    @usableFromInline let queueRelease: QueueRelease
    /// `true` for the deferred of a `then` step (``init(sharing:parent:step:)``):
    /// its `upstream` is the parent, released by ``runStep(after:)`` rather
    /// than by the settlement.
    @usableFromInline let runsStep: Bool
    /// Whether a fulfilled `outcomeStorage` must be destroyed in `deinit`
    /// (``OutcomeStorage/needsDestroying(_:)``). Decided where `Value` is
    /// known, when the initialiser is specialised: the unspecialised
    /// `deinit` would otherwise call out to ask, for every freed deferred.
    /// Shares a word with the flags above.
    @usableFromInline let destroysValue: Bool
    /// ``Phase/pending``, then ``Phase/claimed`` by the settlement that won
    /// (``claim()``), then ``Phase/fulfilled``, ``Phase/rejected`` or
    /// ``Phase/gaveUp`` once `outcomeStorage` holds the outcome. Set
    /// (releasing) right after the outcome is stored — under the lock, or
    /// by a `then` step's block, which needs no lock to settle its own
    /// deferred — so a reader that sees a settled phase also sees the outcome;
    /// `isPending`, the handler blocks' skip check and `deinit` read it with
    /// one atomic load instead of taking the lock. (Declared next to
    /// `queueRelease` so the two share one word: the object stays in glibc's
    /// 128-byte chunks, which are freed through its fast bins; 16 bytes more
    /// would leave them, and cost more every time a deferred is freed.)
    @usableFromInline let phase: Atomic<Phase>
    /// `false` when cancelling a Task awaiting ``value`` or ``result`` must
    /// leave this deferred alone (the awaiter keeps waiting for the outcome):
    /// a `serializing…` bridge made with `automaticallyCancelling: false`.
    /// Fits the padding after `phase`.
    @usableFromInline let awaiterCancellationCancels: Bool
    /// Consumers derived from this deferred that have not given up (see
    /// ``addConsumer()``). An atomic rather than a field under `lock`: every
    /// handler registers one, and the count only matters while pending.
    @usableFromInline let consumers: Atomic<Int>
    /// The cancel hooks. Read and written only inside ``withState(_:)``,
    /// that is under `lock`.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var lockedState: DeferredState
    /// What this deferred consumes, while pending: told when this deferred
    /// gives up, and what the cycle check walks (``ConsumerLink/awaitedLink``),
    /// so set it only to something this deferred really waits on.
    ///
    /// Written under `lock`, with one exception. The deferred of a `then`
    /// step holds its parent here and nowhere else (one reference, not one
    /// here and one for the step): ``runStep(after:)`` reads it without the
    /// lock, and releases it (writes `nil`) once this deferred is settled.
    /// So no settlement of such a deferred writes it (a cancellation copies
    /// it, under the lock, before publishing the phase, and `runStep` then
    /// releases it under the lock), and readers under the lock read it only
    /// while the phase is pending. When the block settled the deferred
    /// itself, it releases without the lock unless a cycle check is walking:
    /// see ``cycleWalks``.
    ///
    /// Spelled `Optional<…>`, not `…?`: a `var` of the sugared type is
    /// implicitly initialised to `nil` first, so an initialiser's store
    /// becomes an assignment that releases that `nil`.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var upstream: Optional<any ConsumerLink>
    /// The outcome once settled, its kind given by `phase`: written once,
    /// under `lock`, before `phase` leaves ``Phase/pending`` (see
    /// ``currentOutcome``). Its type does not mention `Value`, so freeing a
    /// deferred looks up no metadata (see ``OutcomeStorage``).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var outcomeStorage: OutcomeStorage
    /// The step a pending `then` handler will run, as raw words (see
    /// ``StepStorage``), held here (set at initialisation, taken by the
    /// handler block, touched by nothing else)
    /// so that the block captures this deferred alone: a closure capturing
    /// one object uses it as its context, so the handler allocates no
    /// closure context (see ``runStep(after:)``). The parent is `upstream`.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var stepStorage: StepStorage
    /// Guards `lockedState` (see ``withState(_:)``): the one lock of a deferred.
    ///
    /// A `Mutex<Void>` beside the state rather than a
    /// `Mutex<DeferredState<Value>>`: destroying a field of a generic type
    /// nested three deep costs three run-time metadata lookups every time a
    /// deferred is freed, a large share of a handler's whole cost.
    ///
    /// Declared last: `withLock` hands its critical section an `inout` to
    /// the zero-sized `Void` stored right after the 4-byte lock word, and
    /// ThreadSanitizer records that access at that address. Anywhere else
    /// the address is the next field's (with the lock before `consumers`,
    /// every `addConsumer` racing a settle was reported as a "Swift access
    /// race"); here it falls in the allocation's padding. The object is 108
    /// bytes, within glibc's 128-byte chunks.
    @usableFromInline let lock: Mutex<Void>

    /// A static label longer than 15 bytes is stored out of line by Swift, so
    /// libdispatch receives a pointer into read-only memory, which it does not
    /// copy on Darwin. On Linux it copies every label (23 bytes a deferred);
    /// the Swift overlay offers no way to pass none.
    @inlinable static var queueLabel: String { "DeferredQueue.handlers" }

    // Four initialisers that each set every field, once, rather than one
    // designated initialiser they delegate to: delegating made every pending
    // deferred measurably dearer (BENCHMARKS.md, "The unsafe core and its
    // reference build"), even always inlined.

    /// A pending deferred with its own suspended queue, which targets
    /// `target` (``deferredQueueDefaultTarget`` when `nil`).
    @inlinable
    init(
        pendingWithUpstream upstream: (any ConsumerLink)? = nil, targeting target: DispatchQueue? = nil,
        awaiterCancellationCancels: Bool = true
    ) {
        let queue = DispatchQueue(label: Self.queueLabel, target: target ?? deferredQueueDefaultTarget)
        queue.suspend()
        self.queue = queue
        self.queueRelease = .resume
        self.runsStep = false
        self.awaiterCancellationCancels = awaiterCancellationCancels
        self.destroysValue = OutcomeStorage.needsDestroying(Value.self)
        self.lock = Mutex(())
        self.lockedState = DeferredState()
        self.upstream = upstream
        self.outcomeStorage = OutcomeStorage()
        self.phase = Atomic(Phase.pending)
        self.consumers = Atomic(0)
        self.stepStorage = StepStorage()
    }

    /// A pending deferred with its own inactive queue, whose target may be
    /// chosen until it settles (``retarget(to:)``); it targets
    /// ``deferredQueueDefaultTarget`` until then.
    init(pendingInactive: Void) {
        self.queue = DispatchQueue(label: Self.queueLabel, attributes: .initiallyInactive, target: deferredQueueDefaultTarget)
        self.queueRelease = .activate
        self.runsStep = false
        self.awaiterCancellationCancels = true
        self.destroysValue = OutcomeStorage.needsDestroying(Value.self)
        self.lock = Mutex(())
        self.lockedState = DeferredState()
        self.upstream = nil
        self.outcomeStorage = OutcomeStorage()
        self.phase = Atomic(Phase.pending)
        self.consumers = Atomic(0)
        self.stepStorage = StepStorage()
    }

    /// A pending deferred whose handlers wait on `queue`, owned by an upstream
    /// deferred whose handler will settle this one before any handler
    /// enqueued behind it runs.
    @inlinable
    init(sharing queue: DispatchQueue, upstream: any ConsumerLink) {
        self.queue = queue
        self.queueRelease = .none
        self.runsStep = false
        self.awaiterCancellationCancels = true
        self.destroysValue = OutcomeStorage.needsDestroying(Value.self)
        self.lock = Mutex(())
        self.lockedState = DeferredState()
        self.upstream = upstream
        self.outcomeStorage = OutcomeStorage()
        self.phase = Atomic(Phase.pending)
        self.consumers = Atomic(0)
        self.stepStorage = StepStorage()
    }

    /// The deferred of a `then` step: shares `parent`'s queue, holds
    /// `parent` (as `upstream`) and `step` until ``runStep(after:)`` runs,
    /// in the block the caller enqueues on that queue right away.
    ///
    /// Every field is initialised here, once: set afterwards, each would be
    /// an assignment that first releases the `nil` it replaces.
    @inlinable
    init<Parent: Sendable>(
        sharing parent: Deferred<Parent>,
        step: __owned @escaping @Sendable (Parent) throws -> Value
    ) {
        self.queue = parent.queue
        self.queueRelease = .none
        self.runsStep = true
        self.awaiterCancellationCancels = true
        self.destroysValue = OutcomeStorage.needsDestroying(Value.self)
        self.lock = Mutex(())
        self.lockedState = DeferredState()
        self.upstream = parent
        self.outcomeStorage = OutcomeStorage()
        self.phase = Atomic(Phase.pending)
        self.consumers = Atomic(0)
        // Moved in as its own type; `runStep` moves it out as the same.
        self.stepStorage = StepStorage(holding: consume step)
    }

    /// A deferred that is settled from the start. Its queue is never suspended.
    @inlinable
    init(settled outcome: Result<Value, any Error>) {
        self.queue = DispatchQueue(label: Self.queueLabel, target: deferredQueueDefaultTarget)
        self.queueRelease = .none
        self.runsStep = false
        self.awaiterCancellationCancels = true
        self.destroysValue = OutcomeStorage.needsDestroying(Value.self)
        self.lock = Mutex(())
        self.lockedState = DeferredState()
        self.upstream = nil
        switch outcome {
        case .success(let value):
            self.outcomeStorage = OutcomeStorage(holding: value, as: Value.self)
            self.phase = Atomic(Phase.fulfilled)
        case .failure(let error):
            self.outcomeStorage = OutcomeStorage(holding: error, as: (any Error).self)
            self.phase = Atomic(Phase.rejected)
        }
        self.consumers = Atomic(0)
        self.stepStorage = StepStorage()
    }

    deinit {
        switch phase.load(ordering: .acquiring) {
        case Phase.fulfilled:
            // Checked here: a call into the unspecialised `destroy` is not
            // free, even for an `Int` or `Void`.
            if destroysValue { outcomeStorage.destroy(Value.self) }
        case Phase.pending:
            // Unreachable in practice (a pending deferred is kept alive by
            // its producer and by its own queued handlers), but a suspended
            // queue must never be released, so make sure.
            releaseQueue()
        case let settled:
            // Never `claimed`: the settling call holds this deferred.
            assert(settled != Phase.claimed, "freed while being settled")
            outcomeStorage.destroy((any Error).self)
        }
        // Taken by the step's block, which holds this deferred until it ran:
        // empty unless that block was never run.
        stepStorage.destroy()
        // Taken by the settlement: left only on a deferred that never settled.
        lockedState.releaseCancelHooks()
    }

    // MARK: - Creating

    /// Creates a deferred settled by an executor that runs synchronously on
    /// the caller's thread.
    ///
    /// ```swift
    /// let answer = Deferred<Int> { resolve, reject in
    ///     compute { result in resolve(result) }
    /// }
    /// ```
    ///
    /// If `executor` throws, the deferred is rejected with that error. If the
    /// `resolve` and `reject` closures are released without either being
    /// called, the deferred is rejected with ``DeferredError/abandoned``.
    /// Calls after the first are ignored.
    ///
    /// - Parameter executor: Receives the `resolve` and `reject` closures. They
    ///   may be called from any thread, now or later.
    @inlinable
    public convenience init(
        _ executor: (
            _ resolve: @escaping @Sendable (Value) -> Void,
            _ reject: @escaping @Sendable (any Error) -> Void
        ) throws -> Void
    ) {
        self.init(pendingWithUpstream: nil)
        let resolver = Resolver(self)
        do {
            try executor({ resolver.fulfill($0) }, { resolver.reject($0) })
        } catch {
            resolver.reject(error)
        }
    }

    /// Creates a deferred fulfilled with `value`.
    @inlinable
    public convenience init(value: Value) {
        self.init(settled: .success(value))
    }

    /// Creates a deferred rejected with `error`.
    @inlinable
    public convenience init(error: any Error) {
        self.init(settled: .failure(error))
    }

    /// Creates a deferred from the result of evaluating `body` now: fulfilled
    /// with its value, or rejected with the error it throws.
    @inlinable
    public convenience init(catching body: @autoclosure () throws -> Value) {
        self.init(settled: Result { try body() })
    }

    /// Creates a pending deferred and the ``Resolver`` that settles it.
    ///
    /// Keep the resolver for as long as you intend to settle the deferred:
    /// when the last reference to it goes while the deferred is still pending,
    /// the deferred is rejected with ``DeferredError/abandoned``.
    @inlinable
    public static func pending() -> (deferred: Deferred<Value>, resolver: Resolver<Value>) {
        let deferred = Deferred(pendingWithUpstream: nil)
        return (deferred, Resolver(deferred))
    }

    /// A pending deferred whose queue targets `target` (``deferredQueueDefaultTarget``
    /// when `nil`), and its resolver.
    /// With `awaiterCancellationCancels` `false`, cancelling a Task that
    /// awaits the deferred leaves it pending (see ``value``).
    static func pending(
        targeting target: DispatchQueue?, awaiterCancellationCancels: Bool = true
    ) -> (deferred: Deferred<Value>, resolver: Resolver<Value>) {
        let deferred = Deferred(pendingWithUpstream: nil, targeting: target, awaiterCancellationCancels: awaiterCancellationCancels)
        return (deferred, Resolver(deferred))
    }

    /// A pending deferred whose queue's target may still be chosen, up to
    /// the moment it settles (``retarget(to:)``), and its resolver.
    static func pendingRetargetable() -> (deferred: Deferred<Value>, resolver: Resolver<Value>) {
        let deferred = Deferred(pendingInactive: ())
        return (deferred, Resolver(deferred))
    }
}
