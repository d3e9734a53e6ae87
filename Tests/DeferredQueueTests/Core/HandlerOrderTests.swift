import Dispatch
import Foundation
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Deferred: handlers run once, in order, never early")
struct HandlerOrderTests {
    @Test func twoHundredHandlersRunInRegistrationOrder() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let order = Recorder<Int>()
        let done = Latch(count: 200)
        for index in 0..<200 {
            // Mix the handler kinds: all go through the same queue.
            switch index % 4 {
            case 0: deferred.then { _ in order.append(index); done.arrive() }
            case 1: deferred.finally { order.append(index); done.arrive() }
            case 2: deferred.catch { _ in }.finally { order.append(index); done.arrive() }
            default: deferred.recover { _ in 0 }.then { _ in order.append(index); done.arrive() }
            }
        }
        #expect(order.count == 0, "no handler runs before settlement")
        resolver.fulfill(1)
        #expect(await done.wait())
        #expect(order.events == Array(0..<200))
    }

    @Test func handlersRegisteredAfterSettlementRunAfterEarlierOnes() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let order = Recorder<Int>()
        let done = Latch(count: 2_000)
        for index in 0..<1_000 {
            deferred.then { _ in order.append(index); done.arrive() }
        }
        resolver.fulfill(1)
        // Registration races the draining queue.
        for index in 1_000..<2_000 {
            deferred.then { _ in order.append(index); done.arrive() }
        }
        #expect(await done.wait())
        #expect(order.events == Array(0..<2_000))
    }

    @Test func aHandlerNeverRunsInsideTheCallThatRegistersIt() async {
        let settledDeferred = Deferred(value: 1)
        let sawRegistrationMarker = Recorder<Bool>()
        let done = Latch(count: 100)
        registerMarked(count: 100, on: settledDeferred, record: sawRegistrationMarker, done: done)
        #expect(await done.wait())
        #expect(sawRegistrationMarker.events.count == 100)
        #expect(!sawRegistrationMarker.events.contains(true))
    }

    /// Registers handlers with a thread-local marker set around each call: a
    /// handler that ran synchronously inside `then` would see it.
    private func registerMarked(count: Int, on deferred: Deferred<Int>, record: Recorder<Bool>, done: Latch) {
        for _ in 0..<count {
            Thread.current.threadDictionary["registering"] = true
            deferred.then { _ in
                record.append(Thread.current.threadDictionary["registering"] != nil)
                done.arrive()
            }
            Thread.current.threadDictionary.removeObject(forKey: "registering")
        }
    }

    @Test func eachHandlerRunsExactlyOnce() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let runs = Counter()
        let done = Latch(count: 50)
        for _ in 0..<50 { deferred.then { _ in runs.increment(); done.arrive() } }
        resolver.fulfill(1)
        resolver.fulfill(2)
        deferred.cancel()
        #expect(await done.wait())
        // Give a duplicate run every chance to show up: one more handler,
        // registered last, runs after any duplicate would have.
        let tail = Latch()
        deferred.then { _ in tail.arrive() }
        #expect(await tail.wait())
        #expect(runs.count == 50)
    }

    @Test func defaultHandlerQueueIsNeverTheMainThread() async {
        let onMain = Recorder<Bool>()
        let done = Latch(count: 20)
        for _ in 0..<20 {
            Deferred(value: 1).then { _ in onMain.append(Thread.isMainThread); done.arrive() }
        }
        #expect(await done.wait())
        #expect(onMain.events == Array(repeating: false, count: 20))
    }

    @Test func handlersHonourTheQueueTheyAreGiven() async {
        let key = DispatchSpecificKey<String>()
        let target = DispatchQueue(label: "test.target")
        target.setSpecific(key: key, value: "target")
        let seen = Recorder<String?>()
        let done = Latch(count: 5)
        let (deferred, resolver) = Deferred<Int>.pending()
        deferred.then(on: target) { _ in seen.append(DispatchQueue.getSpecific(key: key)); done.arrive() }
        deferred.catch(on: target) { _ in }.finally { done.arrive() }
        deferred.recover(on: target) { _ in 0 }.then(on: target) { _ in
            seen.append(DispatchQueue.getSpecific(key: key)); done.arrive()
        }
        deferred.finally(on: target) { seen.append(DispatchQueue.getSpecific(key: key)); done.arrive() }
        deferred.then { _ in seen.append(DispatchQueue.getSpecific(key: key) ?? "own"); done.arrive() }
        resolver.fulfill(1)
        #expect(await done.wait())
        #expect(seen.events.filter { $0 == "target" }.count == 3)
        #expect(seen.events.contains("own"))
    }

    @Test func handlersOnAnotherQueueAreDispatchedInRegistrationOrder() async {
        let target = DispatchQueue(label: "test.serial")
        let (deferred, resolver) = Deferred<Int>.pending()
        let order = Recorder<Int>()
        let done = Latch(count: 100)
        for index in 0..<100 {
            deferred.then(on: target) { _ in order.append(index); done.arrive() }
        }
        resolver.fulfill(0)
        #expect(await done.wait())
        #expect(order.events == Array(0..<100))
    }
}
