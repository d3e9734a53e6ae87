import DeferredQueueTesting
import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

/// A deferred resolved with itself, directly or through a loop of flattening
/// steps, rejects with `DeferredError.cycle` — it never hangs. Each test waits
/// with a deadline (a guard against hangs, not a timing assertion).
@Suite("Deferred: cycles reject with DeferredError.cycle")
struct ChainingCycleTests {
    private let cycle = Outcome<Int>.other("\(DeferredError.cycle)")

    @Test func aStepThatReturnsItsOwnResultRejectsWithCycle() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let own = Recorder<Deferred<Int>>()
        let looped = deferred.then { _ in own.events[0] }
        own.append(looped)
        resolver.fulfill(1)
        #expect(await settled(looped, within: 120) == cycle)
    }

    @Test func aRecoverThatReturnsItsOwnResultRejectsWithCycle() async {
        let own = Recorder<Deferred<Int>>()
        let (deferred, resolver) = Deferred<Int>.pending()
        let looped = deferred.recover { _ in own.events[0] }
        own.append(looped)
        resolver.reject(TestError(1))
        #expect(await settled(looped, within: 120) == cycle)
    }

    @Test func aStepThatReturnsADeferredDerivedFromItsResultRejectsWithCycle() async {
        let own = Recorder<Deferred<Int>>()
        let (deferred, resolver) = Deferred<Int>.pending()
        let derived = Recorder<Deferred<Int>>()
        let looped = deferred.then { _ -> Deferred<Int> in
            let next = own.events[0].then { $0 + 1 }.timeout(600)
            derived.append(next)
            return next
        }
        own.append(looped)
        resolver.fulfill(1)
        #expect(await settled(looped, within: 120) == cycle)
        #expect(await settled(derived.events[0], within: 120) == cycle, "the loop's other member settles too")
    }

    @Test func twoDeferredsFollowingEachOtherBothRejectWithCycle() async {
        let cells = Recorder<Deferred<Int>>()
        let (first, firstResolver) = Deferred<Int>.pending()
        let (second, secondResolver) = Deferred<Int>.pending()
        let a = first.then { _ in cells.events[1] }
        let b = second.then { _ in cells.events[0] }
        cells.append(a)
        cells.append(b)
        firstResolver.fulfill(1)
        secondResolver.fulfill(2)
        #expect(await settled(a, within: 120) == cycle)
        #expect(await settled(b, within: 120) == cycle)
    }

    @Test func twoStepsAdoptingEachOtherAtTheSameTimeStillRejectWithCycle() async {
        for _ in 0..<200 {
            let cells = Recorder<Deferred<Int>>()
            let (first, firstResolver) = Deferred<Int>.pending()
            let (second, secondResolver) = Deferred<Int>.pending()
            let a = first.then { _ in cells.events[1] }
            let b = second.then { _ in cells.events[0] }
            cells.append(a)
            cells.append(b)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { firstResolver.fulfill(1) } else { secondResolver.fulfill(2) }
            }
            #expect(await settled(a, within: 120) == cycle)
            #expect(await settled(b, within: 120) == cycle)
        }
    }

    @Test func aThreeStepLoopRejectsWithCycle() async {
        let cells = Recorder<Deferred<Int>>()
        let pairs = (0..<3).map { _ in Deferred<Int>.pending() }
        let steps = (0..<3).map { index in
            pairs[index].deferred.then { _ in cells.events[(index + 1) % 3] }
        }
        for step in steps { cells.append(step) }
        for (index, pair) in pairs.enumerated() { pair.resolver.fulfill(index) }
        for step in steps {
            #expect(await settled(step, within: 120) == cycle)
        }
    }

    @Test func aThreeStepLoopClosedFromThreeThreadsAtOnceRejectsWithCycle() async {
        // Whichever step adopts last, or the one whose walk crosses another's
        // link after it was stored, sees the loop, whatever each step's count
        // of consumers read when it adopted.
        for _ in 0..<200 {
            let cells = Recorder<Deferred<Int>>()
            let pairs = (0..<3).map { _ in Deferred<Int>.pending() }
            let steps = (0..<3).map { index in
                pairs[index].deferred.then { _ in cells.events[(index + 1) % 3].then { $0 + 1 } }
            }
            for step in steps { cells.append(step) }
            DispatchQueue.concurrentPerform(iterations: 3) { index in pairs[index].resolver.fulfill(index) }
            for step in steps {
                #expect(await settled(step, within: 120) == cycle)
            }
        }
    }

    @Test func followingADeferredThatIsNotInALoopStillWorks() async {
        // A recursive loop of flattening steps, each adopting a fresh chain.
        @Sendable func countdown(_ n: Int) -> Deferred<Int> {
            n == 0 ? Deferred(value: 0) : Deferred(value: n).then { value in countdown(value - 1).then { $0 + 1 } }
        }
        #expect(await settled(countdown(1_000)) == .value(1_000))
        let (shared, resolver) = Deferred<Int>.pending()
        let a = Deferred(value: 1).then { _ in shared }
        let b = Deferred(value: 2).then { _ in shared.then { $0 * 2 } }
        resolver.fulfill(21)
        #expect(await settled(a) == .value(21))
        #expect(await settled(b) == .value(42))
    }

    @Test func aLongChainOfStepsAdoptingTheOneBeforeThemSettlesInLinearTime() async {
        // Each step adopts the step registered before it, innermost first
        // (one queue runs them in registration order), all of them pending:
        // the cycle check walked the whole chain below every step, n²/2
        // links in all (five billion here: far past the deadline). A hundred
        // MiB of deferreds: not beside the tests that measure memory.
        await MemoryHeavyWork.exclusively {
            let (gate, open) = Deferred<Void>.pending()
            let (leaf, settleLeaf) = Deferred<Int>.pending()
            var chain = leaf
            for _ in 0..<100_000 {
                let inner = chain
                chain = gate.then { _ in inner }
            }
            // Registered last on the gate's queue: runs once every step adopted.
            let adopted = gate.then { _ in 0 }
            open.fulfill(())
            #expect(await settled(adopted, within: 60) == .value(0), "the steps did not all adopt within the deadline")
            settleLeaf.fulfill(7)
            #expect(await settled(chain, within: 60) == .value(7))
        }
    }

    @Test func theWalkStopsAtALoopThatDoesNotContainItsTarget() {
        // Two pending deferreds linked into a loop by hand, and a third that
        // is not in it: the walk must end, with "no".
        let x = Deferred<Int>(pendingWithUpstream: nil)
        let y = Deferred<Int>(pendingWithUpstream: x)
        x.attach(upstream: y)
        let outsider = Deferred<Int>(pendingWithUpstream: nil)
        #expect(!x.waits(on: outsider))
        #expect(x.waits(on: y) && y.waits(on: x))
        // Break the loop so both can be freed.
        x.settle(.failure(TestError()))
        y.settle(.failure(TestError()))
        outsider.settle(.failure(TestError()))
    }
}
