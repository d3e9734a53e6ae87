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

/// Records the validation and parse events, as `kind:details`.
private final class SerializationMonitor: EventMonitor {
    let queue = DispatchQueue(label: "tests.serialization-monitor")
    let events = Recorder<String>()

    private func verdict(_ result: Request.ValidationResult) -> String { (try? result.get()) != nil ? "ok" : "fail" }

    func request(
        _ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?,
        withResult result: Request.ValidationResult
    ) {
        events.append("validate:\(response.statusCode):\(data?.isEmpty == false):\(verdict(result))")
    }
    func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, HTTPError>) {
        events.append("parse:untyped:\(response.data?.isEmpty == false)")
    }
    func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, HTTPError>) {
        events.append("parse:\(Value.self)")
    }
    func request(
        _ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
        withResult result: Request.ValidationResult
    ) {
        events.append("stream-validate:\(response.statusCode):\(verdict(result))")
    }
    func request(
        _ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
        withResult result: Request.ValidationResult
    ) {
        events.append("download-validate:\(response.statusCode):\(fileURL != nil):\(verdict(result))")
    }
    func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, HTTPError>) {
        events.append("download-parse:untyped:\(response.fileURL != nil)")
    }
    func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, HTTPError>) {
        events.append("download-parse:\(Value.self)")
    }
}

@Suite("Event monitors: validation events before the request finishes, then parse events in the order of the handlers")
struct ValidationAndParseEventTests {
    /// Nothing holds the requests but the session while they run: the events
    /// still name them (the request outlives its handlers). A data request's
    /// validators judge it before the retriers decide, as in Alamofire: their
    /// events come before any handler's.
    @Test func dataRequestsReportEachValidatorAndEachResponse() async throws {
        let fixture = try Fixture()
        let monitor = SerializationMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let done = Latch(count: 2)
        // Started only once the whole chain is on it: a request that finished
        // before the second validator was added would (rightly) run that one
        // late, after the first handler.
        session.request(fixture.url("/json"), shouldAutomaticallyResume: false)
            .validate(statusCode: 200..<300)
            .response(queue: handlerQueue) { _ in }
            .validate(statusCode: [201])
            .responseData(queue: handlerQueue) { _ in done.arrive() }
            .resume()
        session.request(fixture.url("/json"))
            .responseDecodable(of: JSON.self, queue: handlerQueue) { _ in done.arrive() }
        #expect(await done.wait(seconds: 120))
        await drained(monitor.queue)
        let events = monitor.events.events
        #expect(events.filter { $0 != "parse:JSON" } == ["validate:200:true:ok", "validate:200:true:fail", "parse:untyped:true", "parse:Data"])
        #expect(events.filter { $0 == "parse:JSON" }.count == 1)
    }

    @Test func downloadsAndStreamsReportTheirValidatorsAndResponses() async throws {
        let fixture = try Fixture()
        let monitor = SerializationMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let done = Latch(count: 2)
        let download = session.download(fixture.url("/json"))
        defer { removeDownloadedFiles(of: download) }
        download
            .validate(statusCode: 200..<300)
            .response(queue: handlerQueue) { _ in }
            .responseData(queue: handlerQueue) { _ in done.arrive() }
        session.streamRequest(fixture.url("/json"))
            .validate(statusCode: 200..<300)
            .responseStream(on: handlerQueue) { stream in
                if case .complete = stream.event { done.arrive() }
            }
        #expect(await done.wait(seconds: 120))
        await drained(monitor.queue)
        let events = monitor.events.events
        #expect(events.filter { $0.hasPrefix("download") } == ["download-validate:200:true:ok", "download-parse:untyped:true", "download-parse:Data"])
        #expect(events.filter { $0.hasPrefix("stream") } == ["stream-validate:200:ok"])
    }

    /// ClosureEventMonitor has a closure for each of them.
    @Test func closureMonitorsHearValidationAndParsing() async throws {
        let fixture = try Fixture()
        let heard = Recorder<String>()
        let monitor = ClosureEventMonitor()
        monitor.requestDidValidateRequestResponseDataWithResult = { _, _, response, _, _ in heard.append("validate:\(response.statusCode)") }
        monitor.requestDidParseResponse = { _, response in heard.append("parse:\(response.response?.statusCode ?? 0)") }
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        _ = await response { session.request(fixture.url("/json")).validate(statusCode: [200]).response(queue: handlerQueue, completionHandler: $0) }
        await drained(monitor.queue)
        #expect(heard.events == ["validate:200", "parse:200"])
    }
}
