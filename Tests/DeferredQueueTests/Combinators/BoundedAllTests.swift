import DeferredQueueTesting
import Dispatch
import LockSupport
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Combinators: all(_:maxConcurrent:_:)")
struct BoundedAllTests {
    /// How many deferreds from `make` are pending now, and the most ever seen.
    final class Gauge: Sendable {
        private let current = Atomic<Int>(0)
        private let peak = Atomic<Int>(0)

        func enter() {
            let now = current.add(1, ordering: .sequentiallyConsistent).newValue
            var seen = peak.load(ordering: .relaxed)
            while now > seen {
                let (exchanged, original) = peak.compareExchange(
                    expected: seen, desired: now, ordering: .relaxed
                )
                if exchanged { break }
                seen = original
            }
        }

        func leave() { current.subtract(1, ordering: .sequentiallyConsistent) }
        var maximum: Int { peak.load(ordering: .relaxed) }
    }

    /// The inputs started so far, each with the resolver the test settles.
    final class Started: Sendable {
        private let started = Mutex<[(input: Int, resolver: Resolver<Int>)]>([])

        func append(_ input: Int, _ resolver: Resolver<Int>) {
            started.withLock(owner: self) { $0.append((input, resolver)) }
        }

        var count: Int { started.withLock(owner: self) { $0.count } }
        subscript(index: Int) -> (input: Int, resolver: Resolver<Int>) { started.withLock(owner: self) { $0[index] } }
    }

    @Test func neverMoreThanMaxConcurrentArePendingAndTheBoundIsReached() async {
        let gauge = Gauge()
        let started = Started()
        let all = Deferred<Int>.all(0..<20, maxConcurrent: 4) { input in
            gauge.enter()
            let (deferred, resolver) = Deferred<Int>.pending()
            started.append(input, resolver)
            return deferred
        }
        // Settle the newest running input first, so values arrive out of
        // order; each settlement makes room for exactly one more.
        var settledCount = 0
        while settledCount < 20 {
            let expected = min(20, settledCount + 4)
            #expect(await eventually { started.count == expected })
            #expect(started.count == expected, "no more than four pending")
            let newest = (0..<expected).last { started[$0].resolver.isPending } ?? expected - 1
            gauge.leave()
            started[newest].resolver.fulfill(started[newest].input * 10)
            settledCount += 1
        }
        #expect(await settled(all) == .value((0..<20).map { $0 * 10 }))
        #expect(gauge.maximum == 4)
    }

    @Test func manyInputsSettlingOnOtherThreadsStayWithinTheBound() async {
        let gauge = Gauge()
        let all = Deferred<Int>.all(0..<1_000, maxConcurrent: 8) { input in
            gauge.enter()
            return Deferred { resolve, _ in
                DispatchQueue.global().async {
                    gauge.leave()
                    resolve(input)
                }
            }
        }
        #expect(await settled(all) == .value(Array(0..<1_000)))
        #expect(gauge.maximum <= 8)
        #expect(gauge.maximum >= 1)
    }

    @Test func theFirstRejectionRejectsCancelsThePendingOnesAndStartsNoMore() async {
        let started = Started()
        let cancelled = Recorder<Int>()
        let allCancelled = Latch(count: 2)
        let all = Deferred<Int>.all(0..<20, maxConcurrent: 3) { input in
            let (deferred, resolver) = Deferred<Int>.pending()
            resolver.onCancel {
                cancelled.append(input)
                allCancelled.arrive()
            }
            started.append(input, resolver)
            return deferred
        }
        #expect(await eventually { started.count == 3 })
        started[1].resolver.reject(TestError(1))
        #expect(await settled(all) == .error(TestError(1)))
        #expect(await allCancelled.wait())
        #expect(Set(cancelled.events) == [0, 2])
        // The fan-out's own handlers on the cancelled inputs ran before these.
        _ = await settled(started[0].resolver.deferred)
        _ = await settled(started[2].resolver.deferred)
        #expect(started.count == 3, "no input starts after the rejection")
    }

    @Test func cancellingTheResultCancelsThePendingOnesAndStartsNoMore() async {
        let started = Started()
        let allCancelled = Latch(count: 2)
        let all = Deferred<Int>.all([1, 2, 3, 4, 5], maxConcurrent: 2) { input in
            let (deferred, resolver) = Deferred<Int>.pending()
            resolver.onCancel { allCancelled.arrive() }
            started.append(input, resolver)
            return deferred
        }
        #expect(await eventually { started.count == 2 })
        all.cancel()
        #expect(await settled(all) == .cancelled)
        #expect(await allCancelled.wait())
        _ = await settled(started[0].resolver.deferred)
        _ = await settled(started[1].resolver.deferred)
        #expect(started.count == 2)
    }

    @Test func aDeferredSomeoneElseConsumesIsReleasedNotCancelled() async {
        let (shared, sharedResolver) = Deferred<Int>.pending()
        let otherConsumer = shared.then { $0 }
        let all = Deferred<Int>.all([0, 1], maxConcurrent: 2) { input in
            input == 0 ? shared : Deferred(error: TestError(2))
        }
        #expect(await settled(all) == .error(TestError(2)))
        #expect(shared.isPending, "another consumer still wants it")
        sharedResolver.fulfill(5)
        #expect(await settled(otherConsumer) == .value(5))
    }

    @Test func anEmptyInputFulfilsWithNothingWithoutCallingMake() async {
        let calls = Counter()
        let all = Deferred<Int>.all([Int](), maxConcurrent: 3) { _ in calls.increment(); return Deferred(value: 0) }
        #expect(await settled(all) == .value([]))
        #expect(calls.count == 0)
    }

    @Test(arguments: [0, -5])
    func aMaxConcurrentBelowOneRunsOneAtATime(maxConcurrent: Int) async {
        let gauge = Gauge()
        let all = Deferred<Int>.all(stride(from: 0, to: 10, by: 2), maxConcurrent: maxConcurrent) { input in
            gauge.enter()
            return Deferred { resolve, _ in
                DispatchQueue.global().async {
                    gauge.leave()
                    resolve(input)
                }
            }
        }
        #expect(await settled(all) == .value([0, 2, 4, 6, 8]))
        #expect(gauge.maximum == 1)
    }

    @Test func tenThousandAlreadyFulfilledInputsDoNotGrowTheStack() async {
        let all = Deferred<Int>.all(0..<10_000, maxConcurrent: 8) { Deferred(value: $0) }
        #expect(await settled(all) == .value(Array(0..<10_000)))
    }

    @Test func aHugeMaxConcurrentStartsEverythingAtOnce() async {
        let started = Counter()
        let pairs = (0..<5).map { _ in Deferred<Int>.pending() }
        let all = Deferred<Int>.all(0..<5, maxConcurrent: .max) { input in
            started.increment()
            return pairs[input].deferred
        }
        #expect(started.count == 5)
        for (index, pair) in pairs.enumerated().reversed() { pair.resolver.fulfill(index) }
        #expect(await settled(all) == .value([0, 1, 2, 3, 4]))
    }
}
