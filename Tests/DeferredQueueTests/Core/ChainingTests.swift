import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Deferred: then, catch, recover, finally")
struct ChainingTests {
    @Test func thenTransformsTheValue() async {
        let result = Deferred(value: 2).then { $0 * 10 }.then { "\($0)" }
        #expect(await settled(result) == .value("20"))
    }

    @Test func thenReturningADeferredFollowsIt() async {
        let (inner, innerResolver) = Deferred<Int>.pending()
        let result = Deferred(value: 1).then { value -> Deferred<Int> in
            inner.then { $0 + value }
        }
        #expect(result.isPending)
        innerResolver.fulfill(41)
        #expect(await settled(result) == .value(42))
    }

    @Test func anErrorThrownInThenRejectsTheDerivedDeferred() async {
        let result = Deferred(value: 1).then { _ -> Int in throw TestError(5) }.then { $0 + 1 }
        #expect(await settled(result) == .error(TestError(5)))
    }

    @Test func anErrorThrownInAFlatThenRejects() async {
        let result = Deferred(value: 1).then { _ -> Deferred<Int> in throw TestError(6) }
        #expect(await settled(result) == .error(TestError(6)))
    }

    @Test func rejectionSkipsThenAndReachesCatch() async {
        let thenRan = Counter()
        let caught = Recorder<TestError?>()
        let result = Deferred<Int>(error: TestError(2))
            .then { value -> Int in thenRan.increment(); return value }
            .catch { caught.append($0 as? TestError) }
        #expect(await settled(result) == .error(TestError(2)), "catch passes the outcome through")
        #expect(thenRan.count == 0)
        #expect(caught.events == [TestError(2)])
    }

    @Test func catchIsNotCalledOnSuccess() async {
        let caught = Counter()
        let result = Deferred(value: 3).catch { _ in caught.increment() }
        #expect(await settled(result) == .value(3))
        #expect(caught.count == 0)
    }

    @Test func recoverReplacesARejection() async {
        let result = Deferred<Int>(error: TestError(1)).recover { _ in 99 }
        #expect(await settled(result) == .value(99))
        let untouched = Deferred(value: 1).recover { _ in 99 }
        #expect(await settled(untouched) == .value(1))
    }

    @Test func recoverThatThrowsKeepsItRejected() async {
        let result = Deferred<Int>(error: TestError(1)).recover { _ -> Int in throw TestError(2) }
        #expect(await settled(result) == .error(TestError(2)))
    }

    @Test func recoverWithADeferred() async {
        let result = Deferred<Int>(error: TestError(1)).recover { _ in Deferred(value: 7) }
        #expect(await settled(result) == .value(7))
        let failing = Deferred<Int>(error: TestError(1)).recover { _ -> Deferred<Int> in throw TestError(3) }
        #expect(await settled(failing) == .error(TestError(3)))
    }

    @Test func finallyRunsOnEveryOutcomeAndPassesItThrough() async {
        let runs = Counter()
        let fulfilled = Deferred(value: 1).finally { runs.increment() }
        let rejected = Deferred<Int>(error: TestError(4)).finally { runs.increment() }
        let (pending, resolver) = Deferred<Int>.pending()
        let cancelled = pending.finally { runs.increment() }
        pending.cancel()
        resolver.fulfill(0)
        #expect(await settled(fulfilled) == .value(1))
        #expect(await settled(rejected) == .error(TestError(4)))
        #expect(await settled(cancelled) == .cancelled)
        #expect(runs.count == 3)
    }

    @Test func aThreeStepChainSharesOneQueue() {
        let (root, _) = Deferred<Int>.pending()
        let last = root.then { $0 + 1 }.catch { _ in }.finally {}
        #expect(last.queue === root.queue, "synchronous steps are enqueued on the root's queue")
        let onOther = root.then(on: .global()) { $0 }
        #expect(onOther.queue !== root.queue, "a step on another queue gets its own")
    }

    @Test func aThousandStepChainSettles() async {
        var chain = Deferred(value: 0)
        for _ in 0..<1_000 { chain = chain.then { $0 + 1 } }
        #expect(await settled(chain) == .value(1_000))
    }

    @Test func aFlatStepReturningItsOwnResultIsRejectedNotHung() async {
        let (root, resolver) = Deferred<Int>.pending()
        let holder = Recorder<Deferred<Int>>()
        let result = root.then { _ -> Deferred<Int> in holder.events[0] }
        holder.append(result)
        resolver.fulfill(1)
        #expect(await settled(result) == .other("\(DeferredError.cycle)"), "see ChainingCycleTests")
    }
}
