import DeferredQueueTesting
import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

/// The deferred of a `then` step holds its parent (as its upstream link) and
/// its closure (as raw words) only until the step's block ran: a result the
/// caller keeps must not keep its chain alive, and cancellation must still
/// find the parent while the step waits.
@Suite("Deferred: a then step holds its parent and its closure until it ran")
struct StepLifetimeTests {
    /// An object whose release the tests can observe.
    final class Token: Sendable {}

    @Test func aSettledStepLetsGoOfItsParentWhileItsResultIsStillHeld() async {
        let parents = WeakList<Deferred<Int>>()
        let leaf: Deferred<Int>
        do {
            let (root, resolver) = Deferred<Int>.pending()
            parents.add(root)
            leaf = root.then { $0 + 1 }
            resolver.fulfill(1)
        }
        #expect(await settled(leaf) == .value(2))
        #expect(await eventually { parents.aliveCount == 0 }, "the result no longer needs its parent")
        withExtendedLifetime(leaf) {}
    }

    @Test func aStepCancelledBeforeItsTurnLetsGoOfItsParentOnceThatSettles() async {
        let parents = WeakList<Deferred<Int>>()
        let bodyRuns = Counter()
        var resolver: Resolver<Int>?
        let leaf: Deferred<Int>
        do {
            let (root, rootResolver) = Deferred<Int>.pending()
            parents.add(root)
            leaf = root.then { value -> Int in
                bodyRuns.increment()
                return value
            }
            root.finally {} // Another consumer: cancelling `leaf` leaves `root` running.
            resolver = rootResolver
        }
        leaf.cancel()
        #expect(!leaf.isPending)
        resolver?.fulfill(1)
        resolver = nil
        #expect(await settled(leaf) == .cancelled)
        #expect(await eventually { parents.aliveCount == 0 }, "the skipped step released its parent")
        #expect(bodyRuns.count == 0)
        withExtendedLifetime(leaf) {}
    }

    @Test func aStepsClosureIsReleasedOnceItRan() async {
        let tokens = WeakList<Token>()
        let (root, resolver) = Deferred<Int>.pending()
        let leaf: Deferred<Int>
        do {
            let token = Token()
            tokens.add(token)
            leaf = root.then { value in withExtendedLifetime(token) { value + 1 } }
        }
        #expect(tokens.aliveCount == 1, "held until the step runs")
        resolver.fulfill(1)
        #expect(await settled(leaf) == .value(2))
        #expect(await eventually { tokens.aliveCount == 0 })
        withExtendedLifetime((root, leaf)) {}
    }

    @Test func aStepsClosureIsReleasedWhenItsDeferredWasCancelledFirst() async {
        let tokens = WeakList<Token>()
        let (root, resolver) = Deferred<Int>.pending()
        root.finally {} // Another consumer: cancelling `leaf` leaves `root` running.
        let leaf: Deferred<Int>
        do {
            let token = Token()
            tokens.add(token)
            leaf = root.then { value in withExtendedLifetime(token) { value + 1 } }
        }
        leaf.cancel()
        resolver.fulfill(1)
        #expect(await settled(leaf) == .cancelled)
        #expect(await eventually { tokens.aliveCount == 0 })
        withExtendedLifetime((root, leaf)) {}
    }

    @Test func aStepWaitsOnItsParentUntilItSettlesAndOnNothingAfter() async {
        let (root, resolver) = Deferred<Int>.pending()
        let leaf = root.then { $0 + 1 }
        #expect(leaf.awaitedLink === root, "the cycle check walks from a pending step to its parent")
        resolver.fulfill(1)
        #expect(await settled(leaf) == .value(2))
        #expect(leaf.awaitedLink == nil)
    }

    @Test func stepsCancelledWhileTheirParentsQueueRunsThemSettleOnceAndSafely() async {
        // Many steps on one parent, cancelled from another thread while the
        // parent's queue runs them: each cancellation that wins must still
        // reach the parent (its last consumer cancels it), and none may touch
        // a parent already released. Run under the sanitizers too.
        for _ in 0..<200 {
            let (root, resolver) = Deferred<Int>.pending()
            let steps = (0..<8).map { _ in root.then { $0 + 1 } }
            let cancelled = Latch()
            DispatchQueue.global().async {
                for step in steps { step.cancel() }
                cancelled.arrive()
            }
            resolver.fulfill(1)
            #expect(await cancelled.wait())
            for step in steps {
                let outcome = await settled(step)
                #expect(outcome == .value(2) || outcome == .cancelled)
            }
        }
    }

    @Test func cycleChecksWalkingWhileStepsSettleNeverReadAReleasedParent() async {
        // A step's block settles its deferred and releases its parent without
        // the lock unless a cycle check is walking (`cycleWalks`): walks from
        // the end of a chain, on another thread, while the chain's blocks run
        // and let go of their parents. Run under the sanitizers too.
        let unrelated = Token()
        for _ in 0..<200 {
            let (root, resolver) = Deferred<Int>.pending()
            var leaf = root
            for _ in 0..<8 { leaf = leaf.then { $0 + 1 } }
            let walked = Latch()
            let found = Counter()
            DispatchQueue.global().async { [leaf] in
                for _ in 0..<20 where leaf.waits(on: unrelated) { found.increment() }
                walked.arrive()
            }
            resolver.fulfill(0)
            #expect(await walked.wait())
            #expect(found.count == 0, "the walk never reaches an object outside the chain")
            #expect(await settled(leaf) == .value(8))
            #expect(leaf.awaitedLink == nil, "settled: waits on nothing")
        }
    }

    @Test func aStepCancelledFromAnotherThreadAsItsBlockRunsHandsItsChildAnOutcome() async {
        // The child's block reads the step's outcome right after the step's
        // own block, which may have seen the cancellation's claim before
        // its publication: the child must still get `.cancelled` (or the
        // value), never an outcome not yet stored.
        for _ in 0..<500 {
            let (root, resolver) = Deferred<Int>.pending()
            root.finally {} // Another consumer: cancelling `step` leaves `root` running.
            let step = root.then { $0 + 1 }
            let child = step.then { $0 + 1 }
            let cancelled = Latch()
            DispatchQueue.global().async {
                step.cancel()
                cancelled.arrive()
            }
            resolver.fulfill(1)
            #expect(await cancelled.wait())
            let outcome = await settled(child)
            #expect(outcome == .value(3) || outcome == .cancelled)
        }
    }

    @Test func aCancelThatReturnsHasSeenTheStepSettledWhoeverWon() async {
        // `cancel()` may lose to the step's block, which claims without the
        // lock: it returns only once the winner has published, so a caller
        // never sees the deferred still pending after its own `cancel()`.
        for _ in 0..<500 {
            let (root, resolver) = Deferred<Int>.pending()
            root.finally {}  // Another consumer: cancelling `step` leaves `root` running.
            let step = root.then { $0 + 1 }
            let checked = Latch()
            let stillPending = Counter()
            DispatchQueue.global().async {
                step.cancel()
                if step.isPending { stillPending.increment() }
                checked.arrive()
            }
            resolver.fulfill(1)
            #expect(await checked.wait())
            #expect(stillPending.count == 0)
            let outcome = await settled(step)
            #expect(outcome == .value(2) || outcome == .cancelled)
        }
    }

    @Test func awaitingAStepAndCancellingAsItSettlesGivesOneOfItsOutcomes() async {
        // The await's cancellation handler reads the outcome off the queue
        // right after `cancel()`, possibly while the step's block is between
        // claiming the settlement and publishing it.
        for _ in 0..<200 {
            let (root, resolver) = Deferred<Int>.pending()
            let step = root.then { $0 + 1 }
            let waiter = Task { await Outcome(step.result) }
            DispatchQueue.global().async { resolver.fulfill(1) }
            waiter.cancel()
            let outcome = await waiter.value
            #expect(outcome == .value(2) || outcome == .cancelled)
        }
    }

    @Test func aStoredStepComesBackAsItselfAndItsContextIsReleasedOnce() throws {
        let tokens = WeakList<Token>()
        do {
            let token = Token()
            tokens.add(token)
            let step: @Sendable (Int) throws -> Int = { value in withExtendedLifetime(token) { value * 3 } }
            var storage = StepStorage(holding: step)
            #expect(!storage.isEmpty)
            let back = storage.take((@Sendable (Int) throws -> Int).self)
            #expect(storage.isEmpty)
            #expect(try back(2) == 6)
        }
        #expect(tokens.aliveCount == 0, "taken once, released once")
        do {
            let token = Token()
            tokens.add(token)
            var storage = StepStorage(holding: { @Sendable in withExtendedLifetime(token) {} })
            storage.destroy()
            #expect(storage.isEmpty)
        }
        #expect(tokens.aliveCount == 0, "destroy releases a step never taken")
    }
}
