import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// Records the task events of a session's requests, as `name:attempt`.
private final class TaskMonitor: EventMonitor {
    let queue = DispatchQueue(label: "tests.task-monitor")
    let events = Recorder<String>()
    let finished = Latch()

    func request(_ request: Request, didCreateTask task: RequestTask) {
        events.append("create:\(task.attempt):\(task.request?.url?.path ?? "?")")
    }
    func request(_ request: Request, didResumeTask task: RequestTask) { events.append("resume:\(task.attempt)") }
    func request(_ request: Request, didSuspendTask task: RequestTask) { events.append("suspend:\(task.attempt)") }
    func request(_ request: Request, didCancelTask task: RequestTask) { events.append("cancel:\(task.attempt)") }
    func request(_ request: Request, didCompleteTask task: RequestTask, with error: HTTPError?) {
        events.append("complete:\(task.attempt):\(error?.kind ?? "ok")")
    }
    func requestDidFinish(_ request: Request) {
        events.append("finish")
        finished.arrive()
    }
}

/// Alamofire's task events, transport-neutral: one task per attempt.
@Suite("Event monitors: task events, one task per attempt")
struct TaskEventTests {
    @Test func eachAttemptIsCreatedResumedAndCompletedInOrder() async throws {
        let fixture = try Fixture()
        let monitor = TaskMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor], retryPolicy: RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.01))
        let request = session.request(fixture.url("/flaky"), shouldAutomaticallyResume: false)
        #expect(request.task == nil, "no attempt yet")
        #expect(request.tasks.isEmpty)
        #expect(request.firstTask == nil && request.lastTask == nil && request.performedRequests.isEmpty)
        #expect(request.timing == nil, "no outcome yet")
        let got = await response(within: 120) { request.resume().response(queue: handlerQueue, completionHandler: $0) }
        #expect(await monitor.finished.wait(seconds: 120))
        #expect(request.task?.attempt == 3, "the latest attempt")
        #expect(request.firstTask?.attempt == 1)
        #expect(request.lastTask?.attempt == 3)
        #expect(request.performedRequests.map { $0.url?.path } == ["/flaky", "/flaky", "/flaky"])
        #expect(request.timing != nil && request.timing == got?.timing, "the responses' timing")
        #expect(request.task?.request?.url?.path == "/flaky")
        #expect(request.task?.originalRequest == request.task?.request && request.task?.currentRequest == request.task?.request,
                "URLSessionTask's names for the request the attempt sent")
        #expect(request.tasks.map(\.attempt) == [1, 2, 3], "every attempt, in order")
        #expect(request.tasks.allSatisfy { $0.request?.url?.path == "/flaky" })
        #expect(monitor.events.events == [
            "create:1:/flaky", "resume:1", "complete:1:ok",
            "create:2:/flaky", "resume:2", "complete:2:ok",
            "create:3:/flaky", "resume:3", "complete:3:ok", "finish",
        ])
    }

    @Test func aTransportFailureCompletesTheTaskWithIt() async throws {
        let port = try LoopbackServer.unusedPort()
        let monitor = TaskMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        _ = await response(within: 120) {
            session.request("http://127.0.0.1:\(port)/refused").response(queue: handlerQueue, completionHandler: $0)
        }
        #expect(await monitor.finished.wait(seconds: 120))
        let refused = "sessionTaskFailed(\(URLError.Code.cannotConnectToHost.rawValue))"
        #expect(monitor.events.events == ["create:1:/refused", "resume:1", "complete:1:\(refused)", "finish"])
    }

    /// A stream handler on the transport's callback queue acts at the first
    /// chunk, before the transport's next event.
    @Test(arguments: [false, true])
    func aTaskInFlightIsSuspendedResumedOrCancelled(cancelling: Bool) async throws {
        let server = try LoopbackServer { _ in .generated(length: 1 << 20, chunkSize: 16 << 10, interval: 0.01) }
        defer { server.shutdown() }
        let monitor = TaskMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let acted = Latch()
        let chunks = Counter()
        let request = session.streamRequest(server.url("/body"))
        request.responseStream(on: request.callbackQueue) { [weak request] stream in
            guard case .stream = stream.event, chunks.increment() == 1 else { return }
            if cancelling { request?.cancel() } else { request?.suspend() }
            acted.arrive()
        }
        #expect(await acted.wait())
        if !cancelling { request.resume() }
        #expect(await monitor.finished.wait(seconds: 120))
        #expect(await eventually { session.runningRequestCount == 0 })
        await drained(monitor.queue)
        let expected = cancelling
            ? ["create:1:/body", "resume:1", "cancel:1", "complete:1:cancelled", "finish"]
            : ["create:1:/body", "resume:1", "suspend:1", "resume:1", "complete:1:ok", "finish"]
        #expect(monitor.events.events == expected)
    }
}
