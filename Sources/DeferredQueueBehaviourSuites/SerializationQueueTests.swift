import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Serialization: requests in parallel by default, one at a time on a serial serializationQueue")
struct SerializationQueueTests {
    /// Two requests whose validators each wait for the other's: they meet
    /// only if the two run at the same time. Funnelled through one serial
    /// queue, the first would wait out its deadline alone.
    @Test func differentRequestsValidateAtTheSameTime() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        let met = Recorder<String>()
        let done = Latch(count: 2)
        for (name, mine, other) in [("first", first, second), ("second", second, first)] {
            session.request(fixture.url("/json"))
                .validate { _, _, _ in
                    mine.signal()
                    if other.wait(timeout: .now() + 60) == .success { met.append(name) }
                    return .success(())
                }
                .responseData(queue: handlerQueue) { _ in done.arrive() }
        }
        #expect(await done.wait(seconds: 120))
        #expect(Set(met.events) == ["first", "second"])
    }

    /// With a serial `serializationQueue`, every request's validators run on
    /// it and never two at once; each request's handlers keep their order.
    @Test func aSerialSerializationQueueRunsOneRequestAtATime() async throws {
        let fixture = try Fixture()
        let queue = DispatchQueue(label: "tests.serialization")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let session = TestTransport.makeSession(serializationQueue: queue)
        let active = Atomic<Int>(0)
        let atOnce = Recorder<Int>()
        let offQueue = Recorder<Int>(), order = Recorder<String>()
        let count = 6
        let done = Latch(count: count)
        for index in 0..<count {
            session.request(fixture.url("/json"))
                .validate { _, _, _ in
                    if DispatchQueue.getSpecific(key: key) != true { offQueue.append(index) }
                    atOnce.append(active.add(1, ordering: .sequentiallyConsistent).newValue)
                    // Long enough for another request's validator to overlap, were it allowed to.
                    usleep(20_000)
                    active.subtract(1, ordering: .sequentiallyConsistent)
                    order.append("\(index):validate")
                    return .success(())
                }
                .response(queue: handlerQueue) { _ in order.append("\(index):response") }
                .responseData(queue: handlerQueue) { _ in
                    order.append("\(index):data")
                    done.arrive()
                }
        }
        #expect(await done.wait(seconds: 120))
        #expect(offQueue.events.isEmpty)
        #expect(atOnce.events.max() == 1)
        for index in 0..<count {
            let mine = order.events.filter { $0.hasPrefix("\(index):") }
            #expect(mine == ["\(index):validate", "\(index):response", "\(index):data"])
        }
    }
}
