#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import LockSupport
import Synchronization

// Inspecting and settling a deferred: the phase, the one-time settlement,
// the outcome read without the lock, and the links to its consumers.

extension Deferred {
    /// `true` until the deferred is fulfilled, rejected or cancelled.
    @inlinable
    public var isPending: Bool {
        // Also while a settlement that won is storing the outcome
        // (``Phase/claimed``): `false` promises a published outcome. A
        // handler block that sees `false` skips its step, and the blocks
        // behind it read the outcome; one that sees `true` and then loses
        // the settlement waits for the winner (the lock, in `settle` and in
        // `runStep`'s release) before the blocks behind it run.
        let phase = phase.load(ordering: .acquiring)
        return phase == Phase.pending || phase == Phase.claimed
    }

    /// Lets the queue run the waiting handlers: once, by the settlement
    /// that won (or by `deinit`, for a deferred never settled).
    @inlinable
    func releaseQueue() {
        switch queueRelease {
        case .resume: queue.resume()
        case .activate: queue.activate()
        case .none: break
        }
    }

    /// Makes the queue of a ``pendingRetargetable()`` deferred target
    /// `target` — the handlers then run as part of `target`'s work (one at
    /// a time when it is serial), still in their order — unless it has
    /// settled. Under the lock, as every claim to settle is: a settlement
    /// activates the queue only after its claim, and the target of an
    /// active queue no longer changes at once.
    func retarget(to target: DispatchQueue) {
        precondition(queueRelease == .activate, "only a deferred created inactive can be retargeted")
        lock.withLock(owner: self) { _ in
            guard phase.load(ordering: .relaxed) == Phase.pending else { return }
            queue.setTarget(queue: target)
        }
    }

    /// Rejects the deferred with ``DeferredError/abandoned`` unless it has
    /// settled: its producer (a ``Resolver``) is gone.
    ///
    /// A function of its own, never inlined: called from a resolver's
    /// `deinit`, which is never specialised, the `settle` call needs the
    /// metadata of `Result<Value, any Error>`, a costly run-time lookup that
    /// the compiler hoisted to the top of `deinit`, paid by every resolver,
    /// settled or not. Here only an abandoning one pays.
    @usableFromInline @inline(never)
    func abandon() {
        settle(.failure(DeferredError.abandoned))
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
        let (settled, upstream) = settleKeepingUpstream(result, givingUp: givingUp)
        upstream?.consumerGaveUp()
        return settled
    }

    /// ``settle(_:givingUp:)`` but for telling the upstream link that a
    /// consumer gave up: that link is returned (giving up only; `nil` otherwise).
    @inlinable
    func settleKeepingUpstream(_ result: Result<Value, any Error>, givingUp: Bool) -> (settled: Bool, upstream: (any ConsumerLink)?) {
        let settlement = withState { state -> DeferredSettlement? in
            // A claim rather than a check under the lock: a `then` step's
            // block settles its deferred without it (`settleStep`).
            guard claim() else { return nil }
            // Before the phase is published: a `then` step's deferred keeps
            // its parent in `upstream` until `runStep` sees it settled (see
            // `upstream`), so a cancellation only copies the link, and no
            // other settlement touches it. Any other deferred lets it go.
            let link: (any ConsumerLink)?
            if runsStep {
                link = givingUp ? upstream : nil
            } else {
                link = upstream
                upstream = nil
            }
            let settlement = DeferredSettlement(cancelHooks: state.takeCancelHooks(), upstream: link)
            publish(result, givingUp: givingUp)
            return settlement
        }
        guard let settlement else {
            // Lost, possibly to a `then` step's block that claimed without
            // the lock and is still storing: a `cancel()` that returns has
            // seen the deferred settled, as it did when every claim was
            // made under the lock.
            waitOutClaim()
            return (false, nil)
        }
        // Exactly once: only the call that stored the outcome gets here.
        releaseQueue()
        guard givingUp else { return (true, nil) }
        for hook in settlement.cancelHooks ?? [] { hook() }
        return (true, settlement.upstream)
    }

    /// `settle` for the block of a `then` step, which settles its own
    /// deferred, without the lock. Such a deferred shares its parent's queue
    /// (nothing to resume), has no producer to hold cancel hooks (only a
    /// ``Resolver`` adds them), keeps its `upstream` until
    /// ``runStep(after:)`` releases it, and is not giving up — so nothing
    /// is handed over, and the lock would only order the outcome's stores,
    /// which the claim and the releasing store of the phase do.
    ///
    /// - Returns: `true` if this call settled the deferred.
    @inlinable
    func settleStep(_ result: Result<Value, any Error>) -> Bool {
        guard claim() else { return false }
        publish(result, givingUp: false)
        return true
    }

    /// Wins the settlement, or finds it won: moves the phase from pending to
    /// ``Phase/claimed``. The winner stores the outcome, then publishes it
    /// (``publish(_:givingUp:)``). Sequentially consistent: ``cycleWalks``.
    @inlinable
    func claim() -> Bool {
        phase.compareExchange(
            expected: Phase.pending, desired: Phase.claimed, ordering: .sequentiallyConsistent
        ).exchanged
    }

    /// The outcome, read off the deferred's queue by a caller that knows it
    /// is settled or being settled (its own `cancel()` has returned): waits
    /// out a settlement between its claim and its publication (a few
    /// stores, never a wait of the settler's).
    @usableFromInline
    func outcomeOnceSettled() -> Result<Value, any Error> {
        waitOutClaim()
        return currentOutcome
    }

    /// Returns once no settlement is between its claim and its publication
    /// (a few stores; the settler never waits on anything meanwhile).
    @usableFromInline
    func waitOutClaim() {
        while phase.load(ordering: .acquiring) == Phase.claimed {
            sched_yield()
        }
    }

    /// Inside the critical section of a settlement that won: stores the
    /// outcome, then publishes it with a releasing store of the phase.
    @inlinable
    func publish(_ result: Result<Value, any Error>, givingUp: Bool) {
        switch result {
        case .success(let value):
            outcomeStorage = OutcomeStorage(holding: value, as: Value.self)
            phase.store(Phase.fulfilled, ordering: .releasing)
        case .failure(let error):
            outcomeStorage = OutcomeStorage(holding: error, as: (any Error).self)
            phase.store(givingUp ? Phase.gaveUp : Phase.rejected, ordering: .releasing)
        }
    }

    /// The settled outcome. Read it only from a block on `queue` (or after
    /// settlement is otherwise known); a pending deferred reads as abandoned,
    /// which a handler can never observe.
    ///
    /// Read without the lock: `outcomeStorage` is written once, inside the
    /// critical section that then sets `phase` (releasing), and never after
    /// (every writer first checks that the phase is pending). So once the
    /// acquiring load sees a settled phase, the outcome is published and
    /// immutable. Saves one lock round trip per handler.
    @inlinable
    var currentOutcome: Result<Value, any Error> {
        switch phase.load(ordering: .acquiring) {
        case Phase.fulfilled:
            return .success(outcomeStorage.load(Value.self))
        case Phase.pending:
            return .failure(DeferredError.abandoned)
        case let settled:
            // `claimed` is never seen where the outcome is read: on the
            // deferred's queue the settling block has published before the
            // next block runs; off it, readers wait it out.
            assert(settled != Phase.claimed, "outcome read before it was stored")
            return .failure(outcomeStorage.load((any Error).self))
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
    /// One atomic increment, no lock: every handler registers one, so this
    /// saves a lock round trip per handler. Counting after
    /// settlement is harmless: ``consumerGaveUp()`` ignores a settled
    /// deferred. A count racing with the last consumer giving up resolves as
    /// it did under the lock: whichever comes first wins, and a consumer
    /// added just after the cancellation sees `.cancelled`.
    @inlinable
    func addConsumer() {
        // Wrapping: the checked `add` is a compare-and-swap loop.
        consumers.wrappingAdd(1, ordering: .relaxed)
    }

    /// Runs `body` if the deferred was cancelled (or timed out), now or later.
    func onGiveUp(_ body: @escaping @Sendable () -> Void) {
        // Producers' deferreds only: a `then` step's deferred may be
        // `claimed` outside the lock, which would read as "settled" here.
        assert(!runsStep, "cancel hooks on a step's deferred")
        let runNow = withState { state -> Bool in
            let phase = phase.load(ordering: .relaxed)
            guard phase != Phase.pending else {
                state.addCancelHook(body)
                return false
            }
            return phase == Phase.gaveUp
        }
        if runNow { body() }
    }
}

extension Deferred: ConsumerLink {
    @usableFromInline
    func consumerGaveUp(into work: inout [any ConsumerLink]) {
        guard isPending else { return }
        guard consumers.wrappingSubtract(1, ordering: .relaxed).newValue <= 0 else { return }
        // Cancelled, as `cancel()` does, but its upstream is told by the caller's loop.
        if let upstream = settleKeepingUpstream(.failure(DeferredError.cancelled), givingUp: true).upstream {
            work.append(upstream)
        }
    }

    /// The deferred this one follows or was derived from, while pending.
    ///
    /// Only while pending: a settled `then` step's deferred may still hold
    /// its parent, which `runStep` may release without the lock (see
    /// ``cycleWalks``).
    @usableFromInline
    var awaitedLink: (any ConsumerLink)? {
        // Counted before the phase is read, until the link is copied: see
        // `cycleWalks`. All sequentially consistent.
        cycleWalks.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { cycleWalks.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        return lock.withLock(owner: self) { _ in
            phase.load(ordering: .sequentiallyConsistent) == Phase.pending ? upstream : nil
        }
    }

    /// Sets `upstream` (see there), under the lock.
    func attach(upstream link: any ConsumerLink) {
        lock.withLock(owner: self) { _ in upstream = link }
    }
}
