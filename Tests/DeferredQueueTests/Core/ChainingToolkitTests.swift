import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Deferred: tap, get, catch(policy:)")
struct ChainingToolkitTests {
    struct Stopped: CancellableError { let isCancelled: Bool }

    // MARK: tap

    @Test func tapSeesTheValueAndPassesItThrough() async {
        let seen = Recorder<Outcome<Int>>()
        let result = Deferred(value: 3).tap { seen.append(Outcome($0)) }.then { $0 + 1 }
        #expect(await settled(result) == .value(4))
        #expect(seen.events == [.value(3)])
    }

    @Test func tapSeesARejectionAndPassesItThrough() async {
        let seen = Recorder<Outcome<Int>>()
        let result = Deferred<Int>(error: TestError(7)).tap { seen.append(Outcome($0)) }
        #expect(await settled(result) == .error(TestError(7)))
        #expect(seen.events == [.error(TestError(7))])
    }

    @Test func tapSeesACancellation() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let seen = Recorder<Outcome<Int>>()
        let tapped = deferred.tap { seen.append(Outcome($0)) }
        deferred.cancel()
        #expect(await settled(tapped) == .cancelled)
        #expect(seen.events == [.cancelled])
        _ = resolver
    }

    @Test func tapRunsInRegistrationOrderWithTheOtherHandlers() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let order = Recorder<String>()
        deferred.then { _ in order.append("then") }
        deferred.tap { _ in order.append("tap") }
        let last = deferred.finally { order.append("finally") }
        resolver.fulfill(1)
        #expect(await settled(last) == .value(1))
        #expect(order.events == ["then", "tap", "finally"])
    }

    @Test func tapOnAQueueRunsThere() async {
        let (queue, key) = Self.labelledQueue()
        let seen = Recorder<String?>()
        let result = Deferred(value: 1).tap(on: queue) { _ in seen.append(DispatchQueue.getSpecific(key: key)) }
        #expect(await settled(result) == .value(1))
        #expect(seen.events == ["target"])
    }

    // MARK: get

    @Test func getRunsTheSideEffectAndPassesTheValueThrough() async {
        let seen = Recorder<Int>()
        let result = Deferred(value: 5).get { seen.append($0) }.then { $0 * 2 }
        #expect(await settled(result) == .value(10))
        #expect(seen.events == [5])
    }

    @Test func aThrowInsideGetRejects() async {
        let after = Counter()
        let result = Deferred(value: 5)
            .get { _ in throw TestError(8) }
            .then { value -> Int in after.increment(); return value }
        #expect(await settled(result) == .error(TestError(8)))
        #expect(after.count == 0)
    }

    @Test func getIsNotCalledOnRejection() async {
        let calls = Counter()
        let result = Deferred<Int>(error: TestError(2)).get { _ in calls.increment() }
        #expect(await settled(result) == .error(TestError(2)))
        #expect(calls.count == 0)
    }

    @Test func getOnAQueueRunsThereAndAThrowStillRejects() async {
        let (queue, key) = Self.labelledQueue()
        let seen = Recorder<String?>()
        let result = Deferred(value: 1).get(on: queue) { _ in
            seen.append(DispatchQueue.getSpecific(key: key))
            throw TestError(3)
        }
        #expect(await settled(result) == .error(TestError(3)))
        #expect(seen.events == ["target"])
    }

    // MARK: catch(policy:)

    @Test func catchExceptCancellationSkipsEveryKindOfCancellation() async {
        let errors: [any Error] = [DeferredError.cancelled, CancellationError(), Stopped(isCancelled: true)]
        for error in errors {
            let calls = Counter()
            let result = Deferred<Int>(error: error).catch(policy: .allErrorsExceptCancellation) { _ in
                calls.increment()
            }
            #expect(await settled(result) != nil)
            #expect(calls.count == 0, "\(error) counts as a cancellation")
        }
    }

    @Test func catchExceptCancellationSkipsACancelledDeferredAndPassesItThrough() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let calls = Counter()
        let result = deferred.catch(policy: .allErrorsExceptCancellation) { _ in calls.increment() }
        deferred.cancel()
        #expect(await settled(result) == .cancelled)
        #expect(calls.count == 0)
        _ = resolver
    }

    @Test func catchExceptCancellationSeesEveryOtherError() async {
        let errors: [any Error] = [
            TestError(1), DeferredError.timedOut, DeferredError.abandoned, DeferredError.cycle, Stopped(isCancelled: false),
        ]
        for error in errors {
            let caught = Recorder<String>()
            let result = Deferred<Int>(error: error).catch(policy: .allErrorsExceptCancellation) {
                caught.append("\($0)")
            }
            #expect(await settled(result) != nil)
            #expect(caught.events == ["\(error)"], "\(error) is not a cancellation")
        }
    }

    @Test func catchAllErrorsSeesCancellationsToo() async {
        let caught = Recorder<String>()
        let result = Deferred<Int>(error: DeferredError.cancelled).catch(policy: .allErrors) { caught.append("\($0)") }
        #expect(await settled(result) == .cancelled)
        #expect(caught.events == ["\(DeferredError.cancelled)"])
    }

    @Test func catchWithAPolicyIgnoresAValueAndRunsOnItsQueue() async {
        let calls = Counter()
        #expect(await settled(Deferred(value: 4).catch(policy: .allErrors) { _ in calls.increment() }) == .value(4))
        #expect(calls.count == 0)
        let (queue, key) = Self.labelledQueue()
        let seen = Recorder<String?>()
        let result = Deferred<Int>(error: TestError(1)).catch(on: queue, policy: .allErrorsExceptCancellation) { _ in
            seen.append(DispatchQueue.getSpecific(key: key))
        }
        #expect(await settled(result) == .error(TestError(1)))
        #expect(seen.events == ["target"])
    }

    private static func labelledQueue() -> (DispatchQueue, DispatchSpecificKey<String>) {
        let queue = DispatchQueue(label: "tests.target")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "target")
        return (queue, key)
    }
}
