import DeferredQueueTesting
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LockSupport
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Combinators: retry with backoff and a predicate")
struct RetryBackoffTimingTests {
    /// A wait that records the delay asked for and fires at once (on a
    /// global queue), or holds `fire` for the test to call.
    final class RecordingWait: Sendable {
        let delays = Recorder<Double>()
        let cancellations = Counter()
        private let held = Mutex<[@Sendable () -> Void]>([])
        private let firesAtOnce: Bool

        init(firesAtOnce: Bool = true) { self.firesAtOnce = firesAtOnce }

        var wait: RetryBackoff.Wait {
            { seconds, fire in
                self.delays.append(seconds)
                if self.firesAtOnce {
                    DispatchQueue.global().async(execute: fire)
                } else {
                    self.held.withLock(owner: self) { $0.append(fire) }
                }
                return { self.cancellations.increment() }
            }
        }

        var heldFires: [@Sendable () -> Void] { held.withLock(owner: self) { $0 } }

        /// Drops the held fires. They capture the retry loop, which holds this
        /// wait: a cycle a real timer breaks by firing (and LeakSanitizer reports).
        func release() { held.withLock(owner: self) { $0 = [] } }
    }

    @Test func waitsGrowByTheBackoffFactorUpToTheMaximum() async {
        let wait = RecordingWait()
        let attempts = Counter()
        let result = Deferred<Int>.retry(
            attempts: 6, delay: 1, backoff: 2, maximumDelay: 5, when: { _ in true }, waiting: wait.wait
        ) {
            Deferred(error: TestError(attempts.increment()))
        }
        #expect(await settled(result) == .error(TestError(6)), "the last attempt's error")
        #expect(attempts.count == 6)
        #expect(wait.delays.events == [1, 2, 4, 5, 5])
    }

    @Test func aShrinkingBackoffIsCappedBeforeItShrinks() async {
        let wait = RecordingWait()
        let result = Deferred<Int>.retry(
            attempts: 4, delay: 10, backoff: 0.5, maximumDelay: 5, when: { _ in true }, waiting: wait.wait
        ) {
            Deferred(error: TestError())
        }
        #expect(await settled(result) == .error(TestError()))
        #expect(wait.delays.events == [5, 5, 2.5])
    }

    @Test func thePredicateDecidesAndSeesEachErrorOnce() async {
        let asked = Recorder<Int>()
        let attempts = Counter()
        let result = Deferred<Int>.retry(
            attempts: 10,
            when: { error in
                let code = (error as? TestError)?.code ?? -1
                asked.append(code)
                return code < 3
            }
        ) {
            Deferred(error: TestError(attempts.increment()))
        }
        #expect(await settled(result) == .error(TestError(3)), "rejects with the error the predicate declined")
        #expect(attempts.count == 3)
        #expect(asked.events == [1, 2, 3])
    }

    @Test func thePredicateIsNotAskedAboutTheLastAttempt() async {
        let asked = Counter()
        let result = Deferred<Int>.retry(attempts: 3, when: { _ in asked.increment(); return true }) {
            Deferred(error: TestError())
        }
        #expect(await settled(result) == .error(TestError()))
        #expect(asked.count == 2)
    }

    @Test func aFulfilledAttemptEndsTheLoopWithItsValue() async {
        let attempts = Counter()
        let wait = RecordingWait()
        let result = Deferred<Int>.retry(
            attempts: 5, delay: 0.5, backoff: 3, maximumDelay: .infinity, when: { _ in true }, waiting: wait.wait
        ) {
            let attempt = attempts.increment()
            return attempt < 3 ? Deferred(error: TestError(attempt)) : Deferred(value: attempt)
        }
        #expect(await settled(result) == .value(3))
        #expect(wait.delays.events == [0.5, 1.5])
    }

    @Test func aCancelledAttemptIsNeverRetried() async {
        let cancellations: [any Error] = [DeferredError.cancelled, CancellationError()]
        for cancellation in cancellations {
            let asked = Counter()
            let attempts = Counter()
            let result = Deferred<Int>.retry(attempts: 5, when: { _ in asked.increment(); return true }) {
                attempts.increment()
                return Deferred(error: cancellation)
            }
            #expect(await settled(result) != nil)
            #expect(attempts.count == 1, "\(cancellation) ends the loop")
            #expect(asked.count == 0)
        }
    }

    @Test func cancellingDuringTheWaitCancelsItAndStartsNoAttempt() async {
        let wait = RecordingWait(firesAtOnce: false)
        let attempts = Counter()
        let result = Deferred<Int>.retry(
            attempts: 5, delay: 60, backoff: 2, maximumDelay: .infinity, when: { _ in true }, waiting: wait.wait
        ) {
            Deferred(error: TestError(attempts.increment()))
        }
        #expect(await eventually { wait.delays.count == 1 })
        result.cancel()
        #expect(await settled(result) == .cancelled)
        #expect(await eventually { wait.cancellations.count == 1 })
        // A wait that fires anyway (a timer racing the cancellation) starts nothing.
        for fire in wait.heldFires { fire() }
        #expect(attempts.count == 1)
        wait.release()
    }

    /// A cancellation landing while the loop stores the wait it just set
    /// up: `stop` and the loop both saw it, and each used to cancel it.
    @Test func aCancellationRacingTheWaitsSetUpCancelsItExactlyOnce() async {
        final class Token: Sendable {}
        // Not the pool's threads (one a core): a queue of its own runs on a
        // thread of its own, which yields when a wait grows long.
        let canceller = DispatchQueue(label: "aCancellationRacingTheWaitsSetUp")
        for round in 0..<Sanitizers.scale(50_000, sanitized: 5_000) {
            let waiting = Counter()
            let cancels = Counter()
            let fire = Mutex<(@Sendable () -> Void)?>(nil)
            let loops = WeakList<Token>()
            let result: Deferred<Int> = {
                let token = Token()
                loops.add(token)
                return Deferred<Int>.retry(
                    attempts: 2, delay: 60, backoff: 1, maximumDelay: .infinity, when: { _ in true },
                    waiting: { _, fireLater in
                        // Held as a timer holds it: the loop holds the result's resolver.
                        fire.withLock { $0 = fireLater }
                        waiting.increment()
                        return { cancels.increment() }
                    }
                ) {
                    _ = token
                    return Deferred(error: TestError())
                }
            }()
            let cancelled = Latch()
            canceller.async {
                // Spins first: the window is a few instructions wide.
                var spins = 0
                while waiting.count == 0 {
                    spins += 1
                    if spins > 10_000 { sched_yield() }
                }
                result.cancel()
                cancelled.arrive()
            }
            #expect(await settled(result) == .cancelled)
            // Once `cancel()` has returned (its hooks have run) and the fire
            // is dropped, the loop (holding `make`, and so the token) is gone
            // as soon as it has finished setting up the wait.
            #expect(await cancelled.wait())
            fire.withLock { $0 = nil }
            #expect(await eventually { loops.aliveCount == 0 })
            guard cancels.count == 1 else {
                Issue.record("round \(round): the wait was cancelled \(cancels.count) times")
                return
            }
        }
    }

    /// A wait that fired before the loop stored it (a zero delay on a busy
    /// machine) does not replace the wait the next attempt set up
    /// meanwhile: cancelling still ends the wait in progress.
    @Test func aWaitThatFiredBeforeItWasStoredLeavesTheNextWaitToCancel() async {
        let waits = Counter()
        let firstReturns = Latch()
        let secondCancelled = Counter()
        let secondFire = Mutex<(@Sendable () -> Void)?>(nil)
        let secondAttempt = Mutex<Resolver<Int>?>(nil)
        let attempts = Counter()
        let result = Deferred<Int>.retry(
            attempts: 5, delay: 0, backoff: 1, maximumDelay: .infinity, when: { _ in true },
            waiting: { _, fire in
                guard waits.increment() == 1 else {
                    // Held as a timer holds it: the loop holds the result's resolver.
                    secondFire.withLock { $0 = fire }
                    return { secondCancelled.increment() }
                }
                // Fires before returning: the second attempt starts here,
                // then fails, and its wait is set up on another thread
                // while this one has yet to return.
                fire()
                secondAttempt.withLock { $0 }?.reject(TestError(2))
                let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
                while waits.count < 2, DispatchTime.now().uptimeNanoseconds < deadline { usleep(1_000) }
                // Lets the other thread store the second wait first.
                usleep(50_000)
                firstReturns.arrive()
                return {}
            }
        ) {
            guard attempts.increment() > 1 else { return Deferred(error: TestError(1)) }
            let (attempt, resolver) = Deferred<Int>.pending()
            secondAttempt.withLock { $0 = resolver }
            return attempt
        }
        #expect(await firstReturns.wait())
        // Lets the loop store (or not) what the first wait returned.
        try? await Task.sleep(nanoseconds: 50_000_000)
        result.cancel()
        #expect(await settled(result) == .cancelled)
        #expect(await eventually { secondCancelled.count == 1 }, "the second wait was cancelled")
        #expect(attempts.count == 2)
        secondFire.withLock { $0 = nil }
    }

    @Test func cancellingDuringARealWaitSettlesAtOnce() async {
        let asked = Latch()
        let attempts = Counter()
        let result = Deferred<Int>.retry(attempts: 5, delay: 3_600, when: { _ in asked.arrive(); return true }) {
            Deferred(error: TestError(attempts.increment()))
        }
        #expect(await asked.wait())
        result.cancel()
        #expect(await settled(result, within: 120) == .cancelled)
        #expect(attempts.count == 1)
    }

    @Test func cancellingCancelsTheAttemptInFlight() async {
        let attemptCancelled = Latch()
        let started = Latch()
        let holder = Recorder<Resolver<Int>>()
        let result = Deferred<Int>.retry(attempts: 3, delay: 0, backoff: 2, when: { _ in true }) {
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
        #expect(holder.count == 1)
    }

    @Test func theRealTimerRetriesWithBackoff() async {
        let attempts = Counter()
        let result = Deferred<Int>.retry(attempts: 4, delay: 0.001, backoff: 2, maximumDelay: 0.01, when: { _ in true }) {
            let attempt = attempts.increment()
            return attempt < 4 ? Deferred(error: TestError(attempt)) : Deferred(value: attempt)
        }
        #expect(await settled(result) == .value(4))
    }

    @Test func oddBackoffSettingsAreMadeSafe() {
        var negative = RetryBackoff(delay: -1, factor: .nan, maximum: .nan)
        #expect([negative.next(), negative.next()] == [0, 0])
        var constant = RetryBackoff(delay: 2, factor: -3, maximum: .nan)
        #expect([constant.next(), constant.next(), constant.next()] == [2, 2, 2])
        var capped = RetryBackoff(delay: .nan, factor: 2, maximum: -1)
        #expect(capped.next() == 0)
        var huge = RetryBackoff(delay: 0, factor: .infinity, maximum: .infinity)
        #expect([huge.next(), huge.next(), huge.next()] == [0, 0, 0])
    }
}
