#if canImport(FoundationNetworking)
import Foundation
import Synchronization
import Testing
@testable import DeferredQueue

/// The URLSession transport's delegate queue makes corelibs' work queue wait
/// while `capacity` callbacks are queued: the only flow control corelibs has.
@Suite("URLSession: the delegate queue holds URLSession back while its callbacks are queued")
struct BoundedDelegateQueueTests {
    /// A producer thread standing in for corelibs' work queue, one per test.
    /// The tests sequence their threads with semaphores on dispatch queues,
    /// never on Swift concurrency's pool, which a loaded run (the sanitizers)
    /// can starve for longer than any patience.
    private let producer = DispatchQueue(label: "BoundedDelegateQueueTests.producer")

    @Test func aProducerWaitsWhileTheQueueIsFull() async throws {
        let capacity = 2
        let queue = BoundedDelegateQueue(
            runningOn: DispatchQueue(label: "BoundedDelegateQueueTests.callbacks"), capacity: capacity, patience: .seconds(600)
        )
        let gate = DispatchSemaphore(value: 0)
        let enqueued = Atomic<Int>(0)
        let seenByTheFirstCallback = Mutex<Int?>(nil)
        let aboutToAddTheLast = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        producer.async {
            for index in 0...capacity {
                if index == capacity { aboutToAddTheLast.signal() }
                queue.addOperation {
                    if index == 0 {
                        gate.wait()
                        seenByTheFirstCallback.withLock { $0 = enqueued.load(ordering: .sequentiallyConsistent) }
                    }
                }
                enqueued.add(1, ordering: .sequentiallyConsistent)
            }
            done.signal()
        }
        DispatchQueue.global().async {
            aboutToAddTheLast.wait()
            // Time for an unbounded queue to take the last callback too; a
            // bounded one holds the producer until the first callback ends.
            usleep(200_000)
            gate.signal()
        }
        try await waitFor(done)
        let seen = try #require(seenByTheFirstCallback.withLock { $0 })
        #expect(seen <= capacity, "the producer queued \(seen) callbacks while \(capacity) fit")
    }

    @Test func everySlotIsGivenBack() async throws {
        let queue = BoundedDelegateQueue(
            runningOn: DispatchQueue(label: "BoundedDelegateQueueTests.callbacks"), capacity: 4, patience: .seconds(600)
        )
        let ran = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        producer.async {
            // With slots kept after their callbacks ran, the fifth would wait out its patience.
            for _ in 0..<1_000 { queue.addOperation { ran.add(1, ordering: .relaxed) } }
            queue.addOperation { done.signal() }
        }
        try await waitFor(done)
        #expect(ran.load(ordering: .relaxed) == 1_000)
    }

    @Test func aCallbackThatWaitsForTheProducerDelaysItWithoutDeadlock() async throws {
        let callbacks = DispatchQueue(label: "BoundedDelegateQueueTests.callbacks")
        let queue = BoundedDelegateQueue(runningOn: callbacks, capacity: 1, patience: .milliseconds(50))
        let done = DispatchSemaphore(value: 0)
        let ran = Atomic<Int>(0)
        producer.async {
            // The first callback waits for the producer (as corelibs' task
            // creation waits for its work queue), which is itself waiting for room.
            queue.addOperation { [producer] in producer.sync { _ = ran.add(1, ordering: .relaxed) } }
            for _ in 0..<100 { queue.addOperation { ran.add(1, ordering: .relaxed) } }
            queue.addOperation { done.signal() }
        }
        try await waitFor(done)
        #expect(ran.load(ordering: .relaxed) == 101)
    }

    /// A delegate queue that is only slow (its callback blocked in a file
    /// write the kernel holds up) must keep the producer waiting: each
    /// callback past `capacity` costs the producer its own patience, so the
    /// backlog grows by one callback per patience at most, never at the
    /// producer's speed.
    @Test func aSlowQueueHoldsEveryCallbackPastCapacityForItsOwnPatience() async throws {
        let capacity = 2, count = 20
        let queue = BoundedDelegateQueue(
            runningOn: DispatchQueue(label: "BoundedDelegateQueueTests.callbacks"), capacity: capacity, patience: .milliseconds(5)
        )
        let gate = DispatchSemaphore(value: 0)
        let ran = Atomic<Int>(0)
        let added = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        producer.async {
            // The first callback blocks the queue and holds a slot; the second holds the other.
            queue.addOperation { gate.wait() }
            for _ in 1..<count {
                queue.addOperation { if ran.add(1, ordering: .relaxed).newValue == count - 1 { done.signal() } }
            }
            added.signal()
        }
        try await waitFor(added)
        // Every callback after the two that fit waited out its patience, one by one.
        #expect(queue.overdrafts.load(ordering: .relaxed) == count - capacity)
        gate.signal()
        try await waitFor(done)
        #expect(ran.load(ordering: .relaxed) == count - 1)
    }

    /// corelibs relies on the delegate queue being serial: a task's response,
    /// data and completion must run one at a time, in the order they were
    /// added, on the transport's queue — through a slot, an overdraft, or from
    /// the queue itself.
    @Test func callbacksRunOneAtATimeInTheOrderAddedOnTheGivenQueue() async throws {
        let callbacks = DispatchQueue(label: "BoundedDelegateQueueTests.callbacks")
        let onCallbacks = DispatchSpecificKey<Bool>()
        callbacks.setSpecific(key: onCallbacks, value: true)
        let queue = BoundedDelegateQueue(runningOn: callbacks, capacity: 4, patience: .microseconds(50))
        let count = 5_000
        let order = Mutex<[Int]>([])
        let running = Atomic<Int>(0)
        let misplaced = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        @Sendable func record(_ index: Int) {
            if running.add(1, ordering: .sequentiallyConsistent).newValue != 1 { misplaced.add(1, ordering: .relaxed) }
            if DispatchQueue.getSpecific(key: onCallbacks) != true { misplaced.add(1, ordering: .relaxed) }
            let recorded = order.withLock { order in
                order.append(index)
                return order.count
            }
            running.subtract(1, ordering: .sequentiallyConsistent)
            if recorded == count { done.signal() }
        }
        producer.async {
            for index in stride(from: 0, to: count, by: 2) {
                // Every second callback is added by its predecessor, from the queue itself.
                queue.addOperation {
                    record(index)
                    queue.addOperation { record(index + 1) }
                }
            }
        }
        try await waitFor(done)
        let seen = order.withLock { $0 }
        #expect(misplaced.load(ordering: .relaxed) == 0, "a callback ran beside another or off the transport's queue")
        #expect(seen.count == count)
        // A callback added from the queue runs after those already queued, so
        // the pairs interleave, but each producer-added callback keeps its
        // order, as does each queue-added one.
        let producerOrderKept = seen.filter { $0 % 2 == 0 } == Array(stride(from: 0, to: count, by: 2))
        let queueOrderKept = seen.filter { $0 % 2 == 1 } == Array(stride(from: 1, to: count, by: 2))
        #expect(producerOrderKept, "callbacks added by the producer ran out of order")
        #expect(queueOrderKept, "callbacks added from the queue ran out of order")
    }

    @Test func aCallbackDroppedUnrunGivesItsSlotBack() async throws {
        let queue = BoundedDelegateQueue(
            runningOn: DispatchQueue(label: "BoundedDelegateQueueTests.callbacks"), capacity: 1, patience: .seconds(2)
        )
        queue.isSuspended = true
        let ran = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        producer.async {
            queue.addOperation { ran.store(true, ordering: .relaxed) }
            queue.cancelAllOperations()
            queue.isSuspended = false
            // The only slot is free again once the cancelled callback is
            // dropped; kept, this one would wait out its patience and overdraw.
            queue.addOperation { done.signal() }
        }
        try await waitFor(done)
        let cancelledOneRan = ran.load(ordering: .relaxed)
        let overdrafts = queue.overdrafts.load(ordering: .relaxed)
        #expect(!cancelledOneRan, "the cancelled callback ran")
        #expect(overdrafts == 0, "the dropped callback kept its slot")
    }

    /// corelibs' `OperationQueue` costs more per operation than a chunk's
    /// own handling: the callbacks that wait are one operation, not one each.
    @Test func callbacksThatWaitTogetherAreOneOperation() async throws {
        let callbacks = DispatchQueue(label: "BoundedDelegateQueueTests.callbacks")
        let queue = BoundedDelegateQueue(runningOn: callbacks, capacity: 256, patience: .seconds(600))
        let busy = DispatchSemaphore(value: 0)
        let ran = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let operations = Mutex<Int?>(nil)
        producer.async {
            // The queue is busy with other work while 100 callbacks arrive.
            callbacks.async { busy.wait() }
            for _ in 0..<100 { queue.addOperation { ran.add(1, ordering: .relaxed) } }
            operations.withLock { $0 = queue.operationCount }
            busy.signal()
            queue.addOperation { done.signal() }
        }
        try await waitFor(done)
        #expect(ran.load(ordering: .relaxed) == 100)
        let waiting = try #require(operations.withLock { $0 })
        #expect(waiting == 1, "\(waiting) operations for 100 callbacks that waited together")
    }

    @Test func callbacksQueuedTogetherAndDroppedUnrunGiveEverySlotBack() async throws {
        let capacity = 3
        let queue = BoundedDelegateQueue(
            runningOn: DispatchQueue(label: "BoundedDelegateQueueTests.callbacks"), capacity: capacity, patience: .seconds(2)
        )
        queue.isSuspended = true
        let ran = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        producer.async {
            // Queued while none runs: they wait for one run together, and are dropped together.
            for _ in 0..<capacity { queue.addOperation { ran.add(1, ordering: .relaxed) } }
            queue.cancelAllOperations()
            queue.isSuspended = false
            for _ in 0..<capacity - 1 { queue.addOperation { ran.add(100, ordering: .relaxed) } }
            queue.addOperation { done.signal() }
        }
        try await waitFor(done)
        #expect(ran.load(ordering: .relaxed) == 100 * (capacity - 1), "a cancelled callback ran, or one added after the cancel did not")
        #expect(queue.overdrafts.load(ordering: .relaxed) == 0, "a dropped callback kept its slot")
    }

    /// The callbacks waiting run together, but those queued meanwhile wait
    /// for another turn: work sent to the transport's queue directly (a
    /// cancel, a timer) does not wait for an endless body to end.
    @Test func workOnTheQueueRunsBetweenCallbacksQueuedMeanwhile() async throws {
        let callbacks = DispatchQueue(label: "BoundedDelegateQueueTests.callbacks")
        let queue = BoundedDelegateQueue(runningOn: callbacks, capacity: 256, patience: .seconds(600))
        let firstRuns = DispatchSemaphore(value: 0)
        let rest = DispatchSemaphore(value: 0)
        let order = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        producer.async {
            queue.addOperation {
                firstRuns.signal()
                rest.wait()
                order.withLock { $0.append("first") }
            }
            firstRuns.wait()
            // While the first callback runs: more callbacks, then work sent to the queue itself.
            for _ in 0..<100 { queue.addOperation { order.withLock { $0.append("callback") } } }
            callbacks.async { order.withLock { $0.append("direct") } }
            queue.addOperation { done.signal() }
            rest.signal()
        }
        try await waitFor(done)
        let seen = order.withLock { $0 }
        #expect(seen.count == 102)
        #expect(seen.prefix(2) == ["first", "direct"], "work on the queue waited behind callbacks queued after it: \(seen.prefix(3))")
    }

    @Test func callbacksEnqueuedFromTheQueueItselfNeverWait() async throws {
        let queue = BoundedDelegateQueue(
            runningOn: DispatchQueue(label: "BoundedDelegateQueueTests.callbacks"), capacity: 1, patience: .seconds(600)
        )
        let done = DispatchSemaphore(value: 0)
        queue.addOperation {
            // The queue is full (this callback holds the only slot): waiting here would never end.
            queue.addOperation { done.signal() }
        }
        try await waitFor(done)
    }

    /// Waits for `semaphore` off the cooperative pool, failing after a deadline against hangs.
    private func waitFor(_ semaphore: DispatchSemaphore) async throws {
        let signalled = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: semaphore.wait(timeout: .now() + 300) == .success) }
        }
        try #require(signalled, "no progress within the deadline")
    }
}
#endif
