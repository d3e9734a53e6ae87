import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Deferred: cancellation")
struct CancellationTests {
    @Test func cancelSettlesAPendingDeferredAndRunsItsHandlers() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let outcomes = Recorder<Outcome<Int>>()
        let done = Latch(count: 3)
        for _ in 0..<3 {
            deferred.then { $0 }.catch { _ in }.finally {}.recover { _ in -1 }
            deferred.finally { done.arrive() }
        }
        deferred.then { $0 }.catch { error in outcomes.append(Outcome(.failure(error))) }
        deferred.cancel()
        resolver.fulfill(5)
        #expect(await done.wait())
        #expect(await settled(deferred) == .cancelled)
        #expect(outcomes.events == [.cancelled])
    }

    @Test func cancelHooksRunOnceAndOnlyOnCancellation() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let hookRuns = Counter()
        resolver.onCancel { hookRuns.increment() }
        resolver.onCancel { hookRuns.increment() }
        deferred.cancel()
        deferred.cancel()
        #expect(hookRuns.count == 2, "each hook once")
        resolver.onCancel { hookRuns.increment() }
        #expect(hookRuns.count == 3, "a hook added after cancellation runs at once")

        let (fulfilled, fulfiller) = Deferred<Int>.pending()
        fulfiller.onCancel { hookRuns.increment() }
        fulfiller.fulfill(1)
        fulfilled.cancel()
        fulfiller.onCancel { hookRuns.increment() }
        #expect(hookRuns.count == 3, "hooks never run for a deferred that settled otherwise")
        #expect(await settled(fulfilled) == .value(1))
    }

    @Test func cancellingTheOnlyConsumerCancelsUpstream() async {
        let (root, resolver) = Deferred<Int>.pending()
        let hook = Latch()
        resolver.onCancel { hook.arrive() }
        let leaf = root.then { $0 + 1 }.then { $0 * 2 }
        leaf.cancel()
        #expect(await hook.wait(), "the producer learns nobody wants the result")
        #expect(await settled(root) == .cancelled)
        #expect(await settled(leaf) == .cancelled)
    }

    /// Each step that loses its last consumer gives up on its parent in a
    /// loop, not a recursion: a chain of any length cannot exhaust the
    /// stack (20,000 steps crashed the process in a debug build).
    @Test func cancellingTheEndOfALongChainCancelsItsRootWithoutExhaustingTheStack() async {
        let (root, resolver) = Deferred<Int>.pending()
        let hook = Latch()
        resolver.onCancel { hook.arrive() }
        var leaf = root
        for _ in 0..<200_000 { leaf = leaf.then { $0 + 1 } }
        leaf.cancel()
        #expect(await hook.wait(), "the producer learns nobody wants the result")
        #expect(await settled(root) == .cancelled)
        #expect(await settled(leaf) == .cancelled)
    }

    /// The same through a combinator: `all`'s inputs, each the end of a
    /// long chain, give up in a loop too, in their order.
    @Test func cancellingAnAllOverLongChainsCancelsEveryRoot() async {
        let order = Recorder<Int>()
        var leaves: [Deferred<Int>] = []
        var roots: [Deferred<Int>] = []
        var resolvers: [Resolver<Int>] = []
        for index in 0..<3 {
            let (root, resolver) = Deferred<Int>.pending()
            resolver.onCancel { order.append(index) }
            var leaf = root
            for _ in 0..<50_000 { leaf = leaf.then { $0 + 1 } }
            roots.append(root)
            resolvers.append(resolver)
            leaves.append(leaf)
        }
        Deferred.all(leaves).cancel()
        for root in roots { #expect(await settled(root) == .cancelled) }
        #expect(order.events == [0, 1, 2])
        withExtendedLifetime(resolvers) {}
    }

    @Test func upstreamWithAnotherConsumerKeepsRunning() async {
        let (root, resolver) = Deferred<Int>.pending()
        let hookRuns = Counter()
        resolver.onCancel { hookRuns.increment() }
        let cancelled = root.then { $0 + 1 }
        let kept = root.then { $0 + 2 }
        cancelled.cancel()
        #expect(root.isPending)
        #expect(hookRuns.count == 0)
        resolver.fulfill(1)
        #expect(await settled(kept) == .value(3))
        #expect(await settled(cancelled) == .cancelled)
    }

    @Test func aCancelledStepDoesNotRunItsBody() async {
        let (root, resolver) = Deferred<Int>.pending()
        let bodyRuns = Counter()
        let step = root.then { value -> Int in bodyRuns.increment(); return value }
        _ = root.then { $0 } // keeps root alive as a consumer
        step.cancel()
        resolver.fulfill(1)
        #expect(await settled(step) == .cancelled)
        #expect(await settled(root) == .value(1))
        #expect(bodyRuns.count == 0)
    }

    @Test func cancellingAFlatStepCancelsTheInnerDeferred() async {
        let (inner, innerResolver) = Deferred<Int>.pending()
        let innerCancelled = Latch()
        innerResolver.onCancel { innerCancelled.arrive() }
        let started = Latch()
        let result = Deferred(value: 1).then { _ -> Deferred<Int> in
            started.arrive()
            return inner
        }
        #expect(await started.wait())
        // The flat step may not have attached yet; cancellation reaches the
        // inner deferred either way.
        result.cancel()
        #expect(await innerCancelled.wait())
        #expect(await settled(result) == .cancelled)
    }

    @Test func cancelAfterSettlementIsANoOp() async {
        let deferred = Deferred(value: 3)
        deferred.cancel()
        #expect(await settled(deferred) == .value(3))
    }

    @Test func cancelRacingFulfilSettlesExactlyOnce() async {
        for _ in 0..<500 {
            let (deferred, resolver) = Deferred<Int>.pending()
            let runs = Counter()
            let done = Latch()
            deferred.finally { runs.increment(); done.arrive() }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { resolver.fulfill(1) } else { deferred.cancel() }
            }
            #expect(await done.wait())
            let outcome = await settled(deferred)
            #expect(outcome == .value(1) || outcome == .cancelled)
            #expect(runs.count == 1)
        }
    }
}
