import Dispatch
import Foundation
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Deferred: creation and settle-once")
struct DeferredTests {
    @Test func valueInitialiserIsFulfilled() async throws {
        let deferred = Deferred(value: 42)
        #expect(!deferred.isPending)
        #expect(try await deferred.value == 42)
    }

    @Test func errorInitialiserIsRejected() async {
        let deferred = Deferred<Int>(error: TestError(7))
        #expect(await settled(deferred) == .error(TestError(7)))
    }

    @Test func catchingInitialiserEvaluatesNowAndCapturesThrows() async {
        let calls = Counter()
        func compute(_ fail: Bool) throws -> Int {
            calls.increment()
            if fail { throw TestError(1) }
            return 5
        }
        let good = Deferred(catching: try compute(false))
        let bad = Deferred(catching: try compute(true))
        #expect(calls.count == 2, "the autoclosure runs inside the initialiser")
        #expect(await settled(good) == .value(5))
        #expect(await settled(bad) == .error(TestError(1)))
    }

    @Test func executorRunsSynchronouslyOnTheCallersThread() async {
        let ranInline = Counter()
        let deferred = Deferred<Int> { resolve, _ in
            ranInline.increment()
            resolve(1)
        }
        #expect(ranInline.count == 1)
        #expect(await settled(deferred) == .value(1))
    }

    @Test func executorThatThrowsRejects() async {
        let deferred = Deferred<Int> { _, _ in throw TestError(3) }
        #expect(await settled(deferred) == .error(TestError(3)))
    }

    @Test func firstSettlementWinsAndLaterOnesAreIgnored() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        #expect(deferred.isPending)
        #expect(resolver.isPending)
        resolver.fulfill(1)
        resolver.fulfill(2)
        resolver.reject(TestError(9))
        resolver.resolve(.success(3))
        deferred.cancel()
        #expect(!deferred.isPending)
        #expect(await settled(deferred) == .value(1))
    }

    @Test func executorClosuresCalledTwiceSettleOnce() async {
        let deferred = Deferred<Int> { resolve, reject in
            resolve(1)
            reject(TestError(2))
            resolve(3)
        }
        #expect(await settled(deferred) == .value(1))
    }

    @Test func resolveFromAnotherThreadLater() async {
        let deferred = Deferred<String> { resolve, _ in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { resolve("later") }
        }
        #expect(await settled(deferred) == .value("later"))
    }

    @Test func voidResolverFulfils() async throws {
        let (deferred, resolver) = Deferred<Void>.pending()
        resolver.fulfill()
        try await deferred.value
    }

    @Test func deferredErrorsDescribeThemselves() {
        #expect(DeferredError.abandoned.description.contains("abandoned"))
        #expect(DeferredError.cancelled.description.contains("cancelled"))
        #expect(DeferredError.timedOut.description.contains("timed out"))
        #expect(DeferredError.allRejected([TestError(1), TestError(2)]).description.contains("All 2"))
        #expect(DeferredError.allRejected([]).description.contains("no inputs"))
    }
}
