import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Combinators: race and any")
struct RaceTests {
    @Test func raceSettlesLikeTheFirstToSettle() async {
        let pairs = (0..<3).map { _ in Deferred<Int>.pending() }
        let race = Deferred.race(pairs.map(\.deferred))
        pairs[2].resolver.fulfill(2)
        // Each input's handler runs on that input's own queue, so two inputs
        // fulfilled back to back race to be "first": wait for the winner
        // before fulfilling the loser, then check that the loser changed nothing.
        #expect(await settled(race) == .value(2))
        pairs[0].resolver.fulfill(0)
        #expect(await settled(race) == .value(2))
    }

    @Test func raceCanBeWonByARejection() async {
        let (never, resolver) = Deferred<Int>.pending()
        let race = Deferred.race([never, Deferred(error: TestError(1))])
        #expect(await settled(race) == .error(TestError(1)))
        _ = resolver
    }

    @Test func raceCancelsLosersNobodyElseConsumes() async {
        let (loser, loserResolver) = Deferred<Int>.pending()
        let (shared, sharedResolver) = Deferred<Int>.pending()
        let loserCancelled = Latch()
        loserResolver.onCancel { loserCancelled.arrive() }
        let sharedCancels = Counter()
        sharedResolver.onCancel { sharedCancels.increment() }
        let otherConsumer = shared.then { $0 }
        let race = Deferred.race([loser, shared, Deferred(value: 9)])
        #expect(await settled(race) == .value(9))
        #expect(await loserCancelled.wait())
        #expect(sharedCancels.count == 0, "a loser someone else consumes keeps running")
        sharedResolver.fulfill(4)
        #expect(await settled(otherConsumer) == .value(4))
    }

    @Test func raceOfNothingIsRejectedNotPendingForever() async {
        #expect(await settled(Deferred<Int>.race([])) == .abandoned)
    }

    @Test func anyTakesTheFirstFulfilmentIgnoringEarlierRejections() async {
        let pairs = (0..<3).map { _ in Deferred<Int>.pending() }
        let any = Deferred.any(pairs.map(\.deferred))
        pairs[0].resolver.reject(TestError(0))
        pairs[2].resolver.reject(TestError(2))
        pairs[1].resolver.fulfill(1)
        #expect(await settled(any) == .value(1))
    }

    @Test func anyWithAllRejectedReportsEveryErrorInInputOrder() async throws {
        let pairs = (0..<3).map { _ in Deferred<Int>.pending() }
        let any = Deferred.any(pairs.map(\.deferred))
        for index in [2, 0, 1] { pairs[index].resolver.reject(TestError(index)) }
        let result = await any.result
        guard case .failure(DeferredError.allRejected(let errors)) = result else {
            Issue.record("expected allRejected, got \(result)")
            return
        }
        #expect(errors.compactMap { $0 as? TestError } == [TestError(0), TestError(1), TestError(2)])
    }

    @Test func anyOfNothingIsAllRejected() async {
        let result = await Deferred<Int>.any([]).result
        guard case .failure(DeferredError.allRejected(let errors)) = result else {
            Issue.record("expected allRejected, got \(result)")
            return
        }
        #expect(errors.isEmpty)
    }
}
