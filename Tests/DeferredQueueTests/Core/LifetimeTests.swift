import DeferredQueueTesting
import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

/// Releasing a suspended DispatchQueue kills the process ("Illegal
/// instruction" in `_dispatch_queue_xref_dispose` on this Linux toolchain), so
/// every test here would crash the whole test run if a pending deferred's
/// queue were ever released while suspended.
@Suite("Deferred: dropping is safe and settled chains are freed")
struct LifetimeTests {
    @Test func droppedResolverAbandonsTheDeferred() async {
        let deferred = makeDeferredWithDroppedResolver()
        #expect(await settled(deferred) == .abandoned)
    }

    private func makeDeferredWithDroppedResolver() -> Deferred<Int> {
        let (deferred, resolver) = Deferred<Int>.pending()
        _ = resolver
        return deferred
    }

    @Test func executorThatKeepsNothingAbandonsTheDeferred() async {
        let deferred = Deferred<Int> { _, _ in }
        #expect(await settled(deferred) == .abandoned)
    }

    @Test func handlersOfAnAbandonedDeferredRunWithThatError() async {
        let errors = Recorder<Outcome<Int>>()
        let done = Latch(count: 2)
        do {
            let (deferred, resolver) = Deferred<Int>.pending()
            deferred.then { $0 }.catch { errors.append(Outcome(.failure($0))); done.arrive() }
            deferred.finally { done.arrive() }
            _ = resolver
        }
        #expect(await done.wait())
        #expect(errors.events == [.abandoned])
    }

    @Test func twentyThousandDroppedPendingDeferredsDoNotCrash() async {
        let handled = Latch(count: 10_000)
        let abandoned = Counter()
        for index in 0..<20_000 {
            let (deferred, resolver) = Deferred<Int>.pending()
            if index.isMultiple(of: 2) {
                // Dropped with a handler waiting in its suspended queue.
                deferred.catch { error in
                    if case DeferredError.abandoned = error { abandoned.increment() }
                    handled.arrive()
                }
            }
            // Otherwise dropped with an empty suspended queue.
            _ = resolver
        }
        #expect(await handled.wait())
        #expect(abandoned.count == 10_000)
    }

    @Test func droppingTheDeferredButKeepingTheResolverIsSafe() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let ran = Latch()
        deferred.then { _ in ran.arrive() }
        // The caller drops the chain; the producer settles later.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { resolver.fulfill(1) }
        #expect(await ran.wait(), "a fire-and-forget chain still runs")
    }

    @Test func fireAndForgetChainsRunToTheEnd() async {
        let reached = Latch(count: 100)
        let resolvers = (0..<100).map { _ in
            let (deferred, resolver) = Deferred<Int>.pending()
            deferred.then { $0 + 1 }.then { _ -> Deferred<Int> in Deferred(value: 2) }.finally { reached.arrive() }
            return resolver
        }
        for resolver in resolvers { resolver.fulfill(1) }
        #expect(await reached.wait())
    }

    @Test func settledChainsAreFreedOnceTheirHandlersRan() async {
        let deferreds = WeakList<Deferred<Int>>()
        let resolvers = WeakList<Resolver<Int>>()
        let ran = Latch()
        do {
            let (root, resolver) = Deferred<Int>.pending()
            let leaf = root.then { $0 + 1 }.then { _ in Deferred(value: 3) }.timeout(60)
            leaf.finally { ran.arrive() }
            deferreds.add(root)
            deferreds.add(leaf)
            resolvers.add(resolver)
            resolver.fulfill(1)
        }
        #expect(await ran.wait())
        #expect(await eventually { deferreds.aliveCount == 0 && resolvers.aliveCount == 0 })
    }

    @Test func aPendingChainWithoutAProducerIsFreedAfterAbandoning() async {
        let deferreds = WeakList<Deferred<Int>>()
        let ran = Latch()
        do {
            let (root, resolver) = Deferred<Int>.pending()
            root.then { $0 }.finally { ran.arrive() }
            deferreds.add(root)
            _ = resolver
        }
        #expect(await ran.wait())
        #expect(await eventually { deferreds.aliveCount == 0 })
    }

    @Test func thousandsOfSettledChainsLeaveNothingBehind() async {
        let count = 5_000
        let weakRefs = WeakList<Deferred<Int>>()
        let done = Latch(count: count)
        for index in 0..<count {
            let (deferred, resolver) = Deferred<Int>.pending()
            let leaf = deferred.then { $0 * 2 }.recover { _ in 0 }
            leaf.finally { done.arrive() }
            weakRefs.add(deferred)
            weakRefs.add(leaf)
            resolver.fulfill(index)
        }
        #expect(await done.wait())
        #expect(await eventually { weakRefs.aliveCount == 0 })
    }

    /// Cancel hooks are held by hand (`Unmanaged`): each must be released
    /// exactly once, by the settlement that takes them.
    @Test func aProducersCancelHooksAreReleasedOnceItSettlesEitherWay() async {
        let tokens = WeakList<HookToken>()
        let ran = Counter()
        for cancelling in [false, true] {
            let deferred: Deferred<Int>
            do {
                let (pending, resolver) = Deferred<Int>.pending()
                for _ in 0..<3 {
                    let token = HookToken()
                    tokens.add(token)
                    resolver.onCancel {
                        ran.increment()
                        withExtendedLifetime(token) {}
                    }
                }
                if cancelling { pending.cancel() } else { resolver.fulfill(1) }
                deferred = pending
            }
            let expected: Outcome<Int> = cancelling ? .cancelled : .value(1)
            #expect(await settled(deferred) == expected)
            #expect(await eventually { tokens.aliveCount == 0 }, "the hooks were released")
        }
        #expect(ran.count == 3, "only the cancellation ran them")
    }
}

/// An object a cancel hook keeps, whose release a test can observe.
private final class HookToken: Sendable {}
