import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// Records every event of a session's requests, as `name:path`.
private final class RecordingMonitor: EventMonitor {
    let queue = DispatchQueue(label: "tests.monitor")
    let events = Recorder<String>()
    let finished: Latch

    init(expectedFinishes: Int = 1) {
        finished = Latch(count: expectedFinishes)
    }

    private func path(_ request: Request) -> String { request.urlRequest?.url?.path ?? "?" }

    func requestDidResume(_ request: Request) { dispatchPrecondition(condition: .onQueue(queue)); events.append("resume") }
    func requestIsRetrying(_ request: Request) { events.append("retry") }
    func requestDidCancel(_ request: Request) { events.append("cancel") }
    func requestDidFinish(_ request: Request) {
        events.append("finish:\(request.state)")
        finished.arrive()
    }
    func request(_ request: Request, didReceive response: HTTPURLResponse) { events.append("response:\(response.statusCode)") }
}

@Suite("Event monitors: every event, on the monitor's queue, in order")
struct EventMonitorTests {
    @Test func aSimpleRequestReportsResumeResponseFinish() async throws {
        let fixture = try Fixture()
        let monitor = RecordingMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        _ = await response(within: 120) { session.request(fixture.url("/json")).response(queue: handlerQueue, completionHandler: $0) }
        #expect(await monitor.finished.wait(seconds: 120))
        #expect(monitor.events.events == ["resume", "response:200", "finish:finished"])
    }

    @Test func retriesAndRedirectsAreReportedInOrder() async throws {
        let fixture = try Fixture()
        let monitor = RecordingMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor], retryPolicy: RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.01))
        _ = await response(within: 120) { session.request(fixture.url("/flaky")).response(queue: handlerQueue, completionHandler: $0) }
        #expect(await monitor.finished.wait(seconds: 120))
        #expect(monitor.events.events == ["resume", "response:503", "retry", "response:503", "retry", "response:200", "finish:finished"])
        let redirectMonitor = RecordingMonitor()
        let redirecting = TestTransport.makeSession(eventMonitors: [redirectMonitor])
        _ = await response(within: 120) { redirecting.request(fixture.url("/redirect")).response(queue: handlerQueue, completionHandler: $0) }
        #expect(await redirectMonitor.finished.wait(seconds: 120))
        #expect(redirectMonitor.events.events == ["resume", "response:302", "response:200", "finish:finished"])
    }

    @Test func aCancelledRequestReportsCancelThenFinishOnce() async throws {
        let fixture = try Fixture()
        let monitor = RecordingMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let req = session.request(fixture.url("/never")).response(queue: handlerQueue) { _ in }
        req.cancel()
        req.cancel()
        #expect(await monitor.finished.wait(seconds: 120))
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(monitor.events.events == ["resume", "cancel", "finish:cancelled"])
    }

    @Test func closureMonitorsAndSeveralMonitorsAllHearEveryEvent() async throws {
        let fixture = try Fixture()
        let finishes = Latch(count: 2)
        let closureEvents = Recorder<String>()
        let closures = ClosureEventMonitor(
            requestDidResume: { _ in closureEvents.append("resume") },
            requestDidFinish: { _ in closureEvents.append("finish"); finishes.arrive() },
            requestDidReceiveResponse: { _, response in closureEvents.append("response:\(response.statusCode)") }
        )
        let recording = RecordingMonitor()
        let session = TestTransport.makeSession(eventMonitors: [closures, recording])
        _ = await response(within: 120) { session.request(fixture.url("/text")).response(queue: handlerQueue, completionHandler: $0) }
        finishes.arrive()
        #expect(await finishes.wait(seconds: 120))
        #expect(await recording.finished.wait(seconds: 120))
        #expect(closureEvents.events == ["resume", "response:200", "finish"])
        #expect(recording.events.events == ["resume", "response:200", "finish:finished"])
    }
}
