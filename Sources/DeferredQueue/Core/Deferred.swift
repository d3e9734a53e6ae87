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
/// targets a global concurrent queue — never the main queue. Pass
/// `on: someQueue` to run a handler elsewhere; handlers are then *dispatched*
/// in registration order, but handlers on different queues may overlap.
///
/// - Warning: A handler must not block waiting for a later handler of the
///   same deferred (or of a deferred derived from it without `on:`): they
///   run one after another on the same serial queue, so that wait never ends.
public final class Deferred<Value: Sendable>: Sendable {
    // The members used by the hot path (creating, chaining, settling) are
    // `@inlinable`/`@usableFromInline`: a client specialises them for its
    // concrete `Value`, which saves the run-time generic metadata lookups that
    // otherwise cost about a fifth of a three-step chain (measured with perf;
    // see BENCHMARKS.md).

    /// The serial queue that holds and runs this deferred's handlers.
    @usableFromInline let queue: DispatchQueue
    /// `true` when this deferred created `queue` suspended and must resume it
    /// when it settles. `false` for a deferred created settled, and for one
    /// that shares its parent's queue (the parent resumes it).
    @usableFromInline let ownsQueue: Bool
    /// ``Phase/pending``, then ``Phase/fulfilled``, ``Phase/rejected`` or
    /// ``Phase/gaveUp`` once `outcomeStorage` holds the outcome. Set
    /// (releasing) inside the critical section that stores the outcome, so
    /// a reader that sees a settled phase also sees the outcome;
    /// `isPending`, the handler blocks' skip check and `deinit` read it with
    /// one atomic load instead of taking the lock. (Declared next to
    /// `ownsQueue` so the two share one word: the object stays in glibc's
    /// 128-byte chunks, which are freed through its fast bins; 16 bytes more
    /// cost ~90 instructions per freed deferred in (c), callgrind.)
    @usableFromInline let phase: Atomic<UInt8>
    /// Consumers derived from this deferred that have not given up (see
    /// ``addConsumer()``). An atomic rather than a field under `lock`: every
    /// handler registers one, and the count only matters while pending.
    @usableFromInline let consumers: Atomic<Int>
    /// Cancel hooks, upstream: what changes besides the outcome. Read and
    /// written only inside ``withState(_:)``, that is under `lock`.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var lockedState: DeferredState
    /// The outcome once settled, its kind given by `phase`: written once,
    /// under `lock`, before `phase` leaves ``Phase/pending`` (see
    /// ``currentOutcome``). Its type does not mention `Value`, so freeing a
    /// deferred looks up no metadata (see ``OutcomeStorage``).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var outcomeStorage: OutcomeStorage
    /// The deferred and the step a pending `then` handler will run, held
    /// here (set before the handler block is enqueued, taken by that block,
    /// touched by nothing else) so that the block captures this deferred
    /// alone: a closure capturing one object uses it as its context, so the
    /// handler allocates no closure context (see ``runStep(after:)``).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var stepParent: AnyObject?
    /// The step, its type erased to a function type of the same
    /// representation (see ``runStep(after:)``).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var stepBody: ErasedStep?
    /// Guards `lockedState` (see ``withState(_:)``): the one lock of a deferred.
    ///
    /// A `Mutex<Void>` beside the state rather than a
    /// `Mutex<DeferredState<Value>>`: destroying a field of a generic type
    /// nested three deep costs three run-time metadata lookups every time a
    /// deferred is freed — callgrind counted ~820 instructions, a fifth of a
    /// handler's whole cost in (c).
    ///
    /// Declared last: `withLock` hands its critical section an `inout` to
    /// the zero-sized `Void` stored right after the 4-byte lock word, and
    /// ThreadSanitizer records that access at that address. Anywhere else
    /// the address is the next field's (with the lock before `consumers`,
    /// every `addConsumer` racing a settle was reported as a "Swift access
    /// race"); here it falls in the allocation's padding. The object is 116
    /// bytes, still within glibc's 128-byte chunks.
    @usableFromInline let lock: Mutex<Void>

    /// A static label longer than 15 bytes is stored out of line by Swift, so
    /// libdispatch receives a pointer into read-only memory and does not copy
    /// it: no per-deferred string work.
    @inlinable static var queueLabel: String { "DeferredQueue.handlers" }

    /// A pending deferred with its own suspended queue, which targets
    /// `target` (a global concurrent queue when `nil`).
    @inlinable
    init(pendingWithUpstream upstream: (any ConsumerLink)? = nil, targeting target: DispatchQueue? = nil) {
        let queue = DispatchQueue(label: Self.queueLabel, target: target)
        queue.suspend()
        self.queue = queue
        self.ownsQueue = true
        self.lock = Mutex(())
        self.lockedState = DeferredState(upstream: upstream)
        self.outcomeStorage = OutcomeStorage()
        self.phase = Atomic(Phase.pending)
        self.consumers = Atomic(0)
        self.stepParent = nil
        self.stepBody = nil
    }

    /// A pending deferred whose handlers wait on `queue`, owned by an upstream
    /// deferred whose handler will settle this one before any handler
    /// enqueued behind it runs.
    @inlinable
    init(sharing queue: DispatchQueue, upstream: any ConsumerLink) {
        self.queue = queue
        self.ownsQueue = false
        self.lock = Mutex(())
        self.lockedState = DeferredState(upstream: upstream)
        self.outcomeStorage = OutcomeStorage()
        self.phase = Atomic(Phase.pending)
        self.consumers = Atomic(0)
        self.stepParent = nil
        self.stepBody = nil
    }

    /// A deferred that is settled from the start. Its queue is never suspended.
    @inlinable
    init(settled outcome: Result<Value, any Error>) {
        self.queue = DispatchQueue(label: Self.queueLabel)
        self.ownsQueue = false
        self.lock = Mutex(())
        self.lockedState = DeferredState(upstream: nil)
        switch outcome {
        case .success(let value):
            self.outcomeStorage = OutcomeStorage(holding: value, as: Value.self)
            self.phase = Atomic(Phase.fulfilled)
        case .failure(let error):
            self.outcomeStorage = OutcomeStorage(holding: error, as: (any Error).self)
            self.phase = Atomic(Phase.rejected)
        }
        self.consumers = Atomic(0)
        self.stepParent = nil
        self.stepBody = nil
    }

    deinit {
        switch phase.load(ordering: .acquiring) {
        case Phase.fulfilled:
            // Checked here: a call into the unspecialised `destroy` costs
            // ~40 instructions even for an `Int` or `Void`.
            if OutcomeStorage.needsDestroying(Value.self) { outcomeStorage.destroy(Value.self) }
        case Phase.pending:
            // Unreachable in practice (a pending deferred is kept alive by
            // its producer and by its own queued handlers), but a suspended
            // queue must never be released, so make sure.
            if ownsQueue { queue.resume() }
        default:
            outcomeStorage.destroy((any Error).self)
        }
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

    /// A pending deferred whose queue targets `target`, and its resolver.
    ///
    /// A producer that settles from a block on `target` (an HTTP session's
    /// delegate queue) lets the handlers run right after that block, on the
    /// same thread, instead of waking another one.
    static func pending(targeting target: DispatchQueue) -> (deferred: Deferred<Value>, resolver: Resolver<Value>) {
        let deferred = Deferred(pendingWithUpstream: nil, targeting: target)
        return (deferred, Resolver(deferred))
    }

    // MARK: - Inspecting and settling

    /// `true` until the deferred is fulfilled, rejected or cancelled.
    @inlinable
    public var isPending: Bool {
        phase.load(ordering: .acquiring) == Phase.pending
    }

    /// Cancels the deferred.
    ///
    /// A pending deferred is rejected with ``DeferredError/cancelled``, its
    /// producer's ``Resolver/onCancel(_:)`` hooks run (a request cancels its
    /// `URLSessionTask`), and its handlers run with that error. If it was
    /// derived from another deferred (`then`, `timeout`, combinators…) and was
    /// that deferred's last interested consumer, the upstream deferred is
    /// cancelled as well. Once settled, `cancel()` does nothing.
    ///
    /// - Note: A deferred derived without `on:` shares its parent's queue. If
    ///   the parent has other consumers and keeps running, handlers already
    ///   registered on the cancelled deferred run (with `.cancelled`) when
    ///   the parent settles. `await value` returns at once regardless.
    public func cancel() {
        settle(.failure(DeferredError.cancelled), givingUp: true)
    }

    /// Settles the deferred unless it has settled already.
    ///
    /// - Parameter givingUp: `true` for cancellation and timeouts: run the
    ///   producer's cancel hooks and tell the upstream deferred that one of
    ///   its consumers gave up.
    /// - Returns: `true` if this call settled the deferred.
    @inlinable
    @discardableResult
    func settle(_ result: Result<Value, any Error>, givingUp: Bool = false) -> Bool {
        let settlement = withState { state -> DeferredSettlement? in
            // Only written under this lock: a relaxed load is enough here.
            guard phase.load(ordering: .relaxed) == Phase.pending else { return nil }
            switch result {
            case .success(let value):
                outcomeStorage = OutcomeStorage(holding: value, as: Value.self)
                phase.store(Phase.fulfilled, ordering: .releasing)
            case .failure(let error):
                outcomeStorage = OutcomeStorage(holding: error, as: (any Error).self)
                phase.store(givingUp ? Phase.gaveUp : Phase.rejected, ordering: .releasing)
            }
            return state.detach()
        }
        guard let settlement else { return false }
        // Exactly once: only the call that stored the outcome gets here.
        if ownsQueue { queue.resume() }
        if givingUp {
            for hook in settlement.cancelHooks { hook() }
            settlement.upstream?.consumerGaveUp()
        }
        return true
    }

    /// The settled outcome. Read it only from a block on `queue` (or after
    /// settlement is otherwise known); a pending deferred reads as abandoned,
    /// which a handler can never observe.
    ///
    /// Read without the lock: `outcomeStorage` is written once, inside the
    /// critical section that then sets `phase` (releasing), and never after
    /// (every writer first checks that the phase is pending). So once the
    /// acquiring load sees a settled phase, the outcome is published and
    /// immutable. Saves one lock round trip per handler (about 60
    /// instructions of ~3,000 in (c), callgrind).
    @inlinable
    var currentOutcome: Result<Value, any Error> {
        switch phase.load(ordering: .acquiring) {
        case Phase.fulfilled: .success(outcomeStorage.load(Value.self))
        case Phase.pending: .failure(DeferredError.abandoned)
        default: .failure(outcomeStorage.load((any Error).self))
        }
    }

    /// Runs `body` with exclusive access to the state, under `lock`.
    @inlinable
    func withState<R>(_ body: (inout DeferredState) -> R) -> R {
        lock.withLock(owner: self) { _ in body(&lockedState) }
    }

    /// Enqueues `body` to run with the outcome once settled — the primitive
    /// every handler and combinator is built on. It does not count as a
    /// consumer; see ``addConsumer()``.
    @inlinable
    func whenSettled(_ body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        queue.async { body(self.currentOutcome) }
    }

    /// Records a consumer that may later give up (see ``ConsumerLink``).
    ///
    /// One atomic increment, no lock (one lock round trip less per handler:
    /// about 50 instructions of ~2,900 in (c), callgrind). Counting after
    /// settlement is harmless: ``consumerGaveUp()`` ignores a settled
    /// deferred. A count racing with the last consumer giving up resolves as
    /// it did under the lock: whichever comes first wins, and a consumer
    /// added just after the cancellation sees `.cancelled`.
    @inlinable
    func addConsumer() {
        consumers.add(1, ordering: .relaxed)
    }

    /// Runs `body` if the deferred was cancelled (or timed out), now or later.
    func onGiveUp(_ body: @escaping @Sendable () -> Void) {
        let runNow = withState { state -> Bool in
            let phase = phase.load(ordering: .relaxed)
            guard phase != Phase.pending else {
                state.cancelHooks.append(body)
                return false
            }
            return phase == Phase.gaveUp
        }
        if runNow { body() }
    }
}

extension Deferred: ConsumerLink {
    @usableFromInline
    func consumerGaveUp() {
        guard isPending else { return }
        if consumers.subtract(1, ordering: .relaxed).newValue <= 0 { cancel() }
    }

    /// The deferred this one follows or was derived from, while pending.
    @usableFromInline
    var awaitedLink: (any ConsumerLink)? {
        lock.withLock(owner: self) { _ in lockedState.upstream }
    }
}
