import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Combinators: timeout, delay, retry")
struct TimingCombinatorTests {
    @Test func timeoutRejectsAPendingDeferredAndCancelsItsProducer() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let producerCancelled = Latch()
        resolver.onCancel { producerCancelled.arrive() }
        let limited = deferred.timeout(0.05)
        #expect(await settled(limited) == .timedOut)
        #expect(await producerCancelled.wait())
    }

    @Test func timeoutPassesAnEarlyOutcomeThrough() async {
        #expect(await settled(Deferred(value: 1).timeout(60)) == .value(1))
        #expect(await settled(Deferred<Int>(error: TestError(2)).timeout(60)) == .error(TestError(2)))
    }

    @Test func timeoutToleratesOddDurations() async {
        let (pending, resolver) = Deferred<Int>.pending()
        let keepsItPending = pending.then { $0 }
        #expect(await settled(pending.timeout(-1)) == .timedOut)
        #expect(await settled(pending.timeout(.nan)) == .timedOut)
        #expect(pending.isPending, "another consumer still wants it")
        #expect(keepsItPending.isPending)
        let infinite = Deferred(value: 3).timeout(.infinity)
        #expect(await settled(infinite) == .value(3))
        _ = resolver
    }

    @Test func delaySettlesLaterWithTheSameOutcome() async {
        #expect(await settled(Deferred(value: 4).delay(0.01)) == .value(4))
        #expect(await settled(Deferred<Int>(error: TestError(1)).delay(0.01)) == .error(TestError(1)))
    }

    @Test func retryMakesAttemptsUntilOneSucceeds() async {
        let attempts = Counter()
        let result = Deferred<Int>.retry(attempts: 5, delay: 0.001) {
            let attempt = attempts.increment()
            return attempt < 3 ? Deferred(error: TestError(attempt)) : Deferred(value: attempt)
        }
        #expect(await settled(result) == .value(3))
        #expect(attempts.count == 3)
    }

    @Test func retryGivesUpWithTheLastError() async {
        let attempts = Counter()
        let result = Deferred<Int>.retry(attempts: 4) {
            Deferred(error: TestError(attempts.increment()))
        }
        #expect(await settled(result) == .error(TestError(4)))
        #expect(attempts.count == 4)
    }

    @Test func retryWithZeroAttemptsStillTriesOnce() async {
        let attempts = Counter()
        let result = Deferred<Int>.retry(attempts: 0) { attempts.increment(); return Deferred(value: 1) }
        #expect(await settled(result) == .value(1))
        #expect(attempts.count == 1)
    }

    @Test func cancellingARetryCancelsTheAttemptInFlightAndStops() async {
        let attempts = Counter()
        let attemptCancelled = Latch()
        let started = Latch()
        let holder = Recorder<Resolver<Int>>()
        let result = Deferred<Int>.retry(attempts: 10) {
            attempts.increment()
            let (deferred, resolver) = Deferred<Int>.pending()
            resolver.onCancel { attemptCancelled.arrive() }
            holder.append(resolver)
            started.arrive()
            return deferred
        }
        #expect(await started.wait())
        result.cancel()
        #expect(await attemptCancelled.wait())
        #expect(await settled(result) == .cancelled)
        #expect(attempts.count == 1)
    }
}
