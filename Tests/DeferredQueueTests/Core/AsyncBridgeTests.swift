import Dispatch
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Deferred: async/await bridges")
struct AsyncBridgeTests {
    @Test func valueReturnsTheFulfilledValue() async throws {
        let (deferred, resolver) = Deferred<String>.pending()
        DispatchQueue.global().async { resolver.fulfill("hello") }
        #expect(try await deferred.value == "hello")
    }

    @Test func valueThrowsTheRejection() async {
        await #expect(throws: TestError(4)) {
            try await Deferred<Int>(error: TestError(4)).value
        }
    }

    @Test func resultNeverThrows() async {
        let result = await Deferred<Int>(error: TestError(1)).result
        #expect(Outcome(result) == .error(TestError(1)))
    }

    @Test func operationInitialiserRunsTheAsyncWork() async throws {
        let deferred = Deferred<Int> {
            try await Task.sleep(nanoseconds: 1_000_000)
            return 12
        }
        #expect(try await deferred.then { $0 + 1 }.value == 13)
        let failing = Deferred<Int> { throw TestError(8) }
        #expect(await settled(failing) == .error(TestError(8)))
    }

    @Test func cancellingTheAwaitingTaskCancelsTheDeferred() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let hook = Latch()
        resolver.onCancel { hook.arrive() }
        let waiter = Task { await deferred.result }
        waiter.cancel()
        let result = await waiter.value
        #expect(Outcome(result) == .cancelled)
        #expect(await hook.wait())
        #expect(!deferred.isPending)
    }

    @Test func awaitingACancelledSharedStepReturnsPromptly() async {
        // `step` shares `root`'s queue; `root` keeps another consumer, so it
        // is not cancelled and its queue stays suspended.
        let (root, resolver) = Deferred<Int>.pending()
        let step = root.then { $0 }
        _ = root.then { $0 }
        let waiter = Task { await step.result }
        waiter.cancel()
        #expect(Outcome(await waiter.value) == .cancelled)
        #expect(root.isPending)
        resolver.fulfill(1)
    }

    @Test func cancellingTheDeferredCancelsTheOperationTask() async {
        let sawCancellation = Latch()
        let started = Latch()
        let deferred = Deferred<Int> {
            started.arrive()
            do {
                try await Task.sleep(nanoseconds: 3_600_000_000_000)
            } catch {
                sawCancellation.arrive()
                throw error
            }
            return 1
        }
        #expect(await started.wait())
        deferred.cancel()
        #expect(await sawCancellation.wait())
        #expect(await settled(deferred) == .cancelled)
    }

    @Test func awaitingFromManyTasksAtOnce() async throws {
        let (deferred, resolver) = Deferred<Int>.pending()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<200 { group.addTask { try await deferred.value } }
            resolver.fulfill(5)
            var total = 0
            for try await value in group { total += value }
            #expect(total == 1_000)
        }
    }
}
