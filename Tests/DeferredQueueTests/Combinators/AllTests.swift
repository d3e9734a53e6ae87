import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Combinators: all, allSettled, zip")
struct AllTests {
    @Test func allKeepsInputOrderWhenSettledOutOfOrder() async {
        let pairs = (0..<10).map { _ in Deferred<Int>.pending() }
        let all = Deferred.all(pairs.map(\.deferred))
        for index in (0..<10).reversed() { pairs[index].resolver.fulfill(index * 10) }
        #expect(await settled(all) == .value(Array(stride(from: 0, to: 100, by: 10))))
    }

    @Test func allRejectsWithTheFirstRejectionAndReleasesTheRest() async {
        let (slow, slowResolver) = Deferred<Int>.pending()
        let (failing, failingResolver) = Deferred<Int>.pending()
        let slowCancelled = Latch()
        slowResolver.onCancel { slowCancelled.arrive() }
        let all = Deferred.all([slow, failing, Deferred(value: 1)])
        failingResolver.reject(TestError(3))
        #expect(await settled(all) == .error(TestError(3)))
        #expect(await slowCancelled.wait(), "an input nobody else consumes is cancelled")
    }

    @Test func allOfNothingIsEmpty() async {
        #expect(await settled(Deferred<Int>.all([])) == .value([]))
    }

    @Test func allOverTenThousandInputsSettledFromManyThreads() async {
        let pairs = (0..<10_000).map { _ in Deferred<Int>.pending() }
        let all = Deferred.all(pairs.map(\.deferred))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in stride(from: thread, to: pairs.count, by: 4) { pairs[index].resolver.fulfill(index) }
        }
        #expect(await settled(all) == .value(Array(0..<10_000)))
    }

    @Test func cancellingAllCancelsItsInputs() async {
        let pairs = (0..<3).map { _ in Deferred<Int>.pending() }
        let hooks = Latch(count: 3)
        for pair in pairs { pair.resolver.onCancel { hooks.arrive() } }
        let all = Deferred.all(pairs.map(\.deferred))
        all.cancel()
        #expect(await hooks.wait())
        #expect(await settled(all) == .cancelled)
    }

    @Test func allSettledReportsEveryOutcomeInOrder() async throws {
        let (late, lateResolver) = Deferred<Int>.pending()
        let settledAll = Deferred.allSettled([late, Deferred(error: TestError(2)), Deferred(value: 3)])
        lateResolver.fulfill(1)
        let results = try await settledAll.value
        #expect(results.map(Outcome.init) == [.value(1), .error(TestError(2)), .value(3)])
        #expect(await settled(Deferred<Int>.allSettled([]).then { $0.count }) == .value(0))
    }

    @Test func zipPairsValuesOfDifferentTypes() async throws {
        let (number, numberResolver) = Deferred<Int>.pending()
        let zipped = zip(number, Deferred(value: "two"))
        numberResolver.fulfill(1)
        let (first, second) = try await zipped.value
        #expect(first == 1)
        #expect(second == "two")
        let triple = try await zip(Deferred(value: 1), Deferred(value: "b"), Deferred(value: 3.0)).value
        #expect(triple.0 == 1 && triple.1 == "b" && triple.2 == 3.0)
    }

    @Test func zipRejectsWithTheFirstRejection() async {
        let (never, _resolver) = Deferred<String>.pending()
        let zipped = zip(Deferred<Int>(error: TestError(5)), never).then { $0.0 }
        #expect(await settled(zipped) == .error(TestError(5)))
        _ = _resolver
    }
}
