import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Alamofire's `onURLSessionTaskCreation(on:perform:)` and `urlSessionTasks()`,
/// with a `RequestTask` per attempt; on MockTransport.
@Suite("Task creation: onURLSessionTaskCreation and urlSessionTasks, a task per attempt")
struct TaskCreationTests {
    @Test func everyAttemptsTaskIsHandedOverInOrderAndTheLastOneAtOnceToALateHandler() async throws {
        let attempts = Counter()
        let fixture = PolicyFixture { _ in attempts.increment() == 1 ? .status(503) : .json(#"{"ok":true}"#) }
        let session = fixture.makeSession(retryPolicy: RetryPolicy(exponentialBackoffScale: 0.01))
        let tasks = Recorder<RequestTask>()
        let request = session.request(fixture.url("/twice")).onURLSessionTaskCreation(on: handlerQueue) { tasks.append($0) }
        let result = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.response?.statusCode == 200)
        #expect(await eventually { tasks.events.count == 2 })
        #expect(tasks.events.map(\.attempt) == [1, 2])
        #expect(tasks.events.allSatisfy { $0.request?.url?.path == "/twice" })

        let late = Recorder<RequestTask>()
        request.onURLSessionTaskCreation(on: handlerQueue) { late.append($0) }
        #expect(await eventually { late.events.count == 1 })
        #expect(late.events.first?.attempt == 2, "the current task, at once")
    }

    @Test func theLastHandlerSetWins() async throws {
        let fixture = PolicyFixture()
        let (first, second) = (Recorder<RequestTask>(), Recorder<RequestTask>())
        let request = fixture.makeSession().request(fixture.url("/json"))
            .onURLSessionTaskCreation(on: handlerQueue) { first.append($0) }
            .onURLSessionTaskCreation(on: handlerQueue) { second.append($0) }
        _ = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(await eventually { second.events.count == 1 })
        let drained = Latch()
        handlerQueue.async { drained.arrive() }
        _ = await drained.wait()
        #expect(first.events.isEmpty)
    }

    @Test func theTasksStreamEndsWithTheRequest() async throws {
        let fixture = PolicyFixture()
        let request = fixture.makeSession().request(fixture.url("/json"))
        let stream = request.urlSessionTasks()
        async let tasks = stream.collect()
        async let outcome = request.serializingData().result
        let (collected, result) = await (tasks, outcome)
        #expect(result.isSuccess)
        #expect(collected.map(\.attempt) == [1])
        #expect(collected.first?.request?.url == fixture.url("/json"))
    }

    @Test func aRequestThatCouldNotBeBuiltCreatesNoTask() async throws {
        let fixture = PolicyFixture()
        let request = fixture.makeSession().request("not a url").onURLSessionTaskCreation(on: handlerQueue) { _ in
            Issue.record("no task for a request that was never sent")
        }
        let result = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.kind == "invalidURL")
        let drained = Latch()
        handlerQueue.async { drained.arrive() }
        _ = await drained.wait()
    }
}
