import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// `Session.eventMonitor` and `Request.eventMonitor` (Alamofire's), the
/// composite they hand out (an `EventMonitor` that forwards every event), and
/// Alamofire 5.12's `Request.eventMonitor(_:)`.
@Suite("CompositeEventMonitor: a session's monitors as one, forwarding every event; a request's own monitors")
struct CompositeEventMonitorTests {
    /// Names every event it hears, on its own serial queue. Every requirement
    /// of `EventMonitor` is here: one the composite failed to forward would
    /// reach the protocol's default, which does nothing.
    final class EveryEvent: EventMonitor {
        let queue: DispatchQueue
        let names: Recorder<String>
        /// Written before each name, for monitors sharing one recorder.
        let label: String

        init(label: String = "", queue: DispatchQueue = DispatchQueue(label: "every-event"), names: Recorder<String> = Recorder()) {
            (self.label, self.queue, self.names) = (label, queue, names)
        }

        private func record(_ name: String) { names.append(label + name) }

        func requestDidResume(_ request: Request) { record("resume") }
        func requestDidSuspend(_ request: Request) { record("suspend") }
        func requestIsRetrying(_ request: Request) { record("retrying") }
        func requestDidCancel(_ request: Request) { record("cancel") }
        func requestDidFinish(_ request: Request) { record("finish") }
        func request(_ request: Request, didReceive response: HTTPURLResponse) { record("head") }
        func request(_ request: Request, didCreateTask task: RequestTask) { record("task created") }
        func request(_ request: Request, didResumeTask task: RequestTask) { record("task resumed") }
        func request(_ request: Request, didSuspendTask task: RequestTask) { record("task suspended") }
        func request(_ request: Request, didCancelTask task: RequestTask) { record("task cancelled") }
        func request(_ request: Request, didCompleteTask task: RequestTask, with error: HTTPError?) { record("task completed") }
        func request(_ request: Request, didFailToCreateURLRequestWithError error: HTTPError) { record("not built") }
        func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) { record("built") }
        func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
            record("adapted")
        }
        func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: HTTPError) {
            record("not adapted")
        }
        func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) { record("sent") }
        func request(
            _ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?,
            withResult result: Request.ValidationResult
        ) { record("data validated") }
        func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, HTTPError>) { record("data parsed") }
        func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, HTTPError>) {
            record("data parsed as \(Value.self)")
        }
        func request(
            _ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
            withResult result: Request.ValidationResult
        ) { record("stream validated") }
        func request(
            _ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
            withResult result: Request.ValidationResult
        ) { record("download validated") }
        func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, HTTPError>) {
            record("download parsed")
        }
        func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, HTTPError>) {
            record("download parsed as \(Value.self)")
        }
        func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) { record("uploadable") }
        func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: HTTPError) { record("no uploadable") }
        func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) { record("destination") }
        func sessionDidBecomeInvalid(withError error: (any Error)?) { record("invalid") }
        func request(_ request: Request, didFailTask task: RequestTask, earlyWithError error: HTTPError) { record("failed early") }
        func request(_ request: Request, didGatherTiming timing: ResponseTiming) { record("timing") }
        func request(_ request: Request, didReceiveChallengeIn response: HTTPURLResponse) { record("challenge") }
        func request(_ request: Request, willPerformHTTPRedirection response: HTTPURLResponse, newRequest: URLRequest) {
            record("redirect")
        }
        func request(_ request: Request, didReceive data: Data) { record("data") }
        func request(_ request: Request, didSendBodyData progress: TransferProgress) { record("body sent") }
        func request(_ request: DownloadRequest, didWriteData progress: TransferProgress) { record("written") }
        func request(_ request: DownloadRequest, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) {
            record("resumed at")
        }
        func request(_ request: DownloadRequest, didFinishDownloadingUsing task: RequestTask, with result: Result<URL, HTTPError>) {
            record("downloaded")
        }
        func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) { record("input stream") }
        func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, HTTPError>) {
            record("stream parsed as \(Value.self)")
        }

        /// The names, once the queue ran everything enqueued before.
        func settled() async -> [String] {
            let drained = Latch()
            queue.async { drained.arrive() }
            _ = await drained.wait()
            return names.events
        }
    }

    @Test func everyEventReachesEveryMonitorInOrder() async throws {
        let fixture = PolicyFixture()
        let session = fixture.makeSession()
        let url = fixture.url("/json")
        let urlRequest = URLRequest(url: url)
        let head = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
        let (data, download, upload, stream) = (
            session.request(url), session.download(url), session.upload(Data("u".utf8), to: url), session.streamRequest(url)
        )
        let task = RequestTask(attempt: 1, request: urlRequest)
        let error = HTTPError.cancelled
        let timing = ResponseTiming(start: Date(), end: Date())
        let progress = TransferProgress(completed: 1, expected: 2)
        let (first, second) = (EveryEvent(), EveryEvent())
        let composite = CompositeEventMonitor(monitors: [first, second])
        #expect(composite.monitors.count == 2)

        composite.requestDidResume(data)
        composite.requestDidSuspend(data)
        composite.requestIsRetrying(data)
        composite.requestDidCancel(data)
        composite.requestDidFinish(data)
        composite.request(data, didReceive: head)
        composite.request(data, didCreateTask: task)
        composite.request(data, didResumeTask: task)
        composite.request(data, didSuspendTask: task)
        composite.request(data, didCancelTask: task)
        composite.request(data, didCompleteTask: task, with: nil)
        composite.request(data, didFailToCreateURLRequestWithError: error)
        composite.request(data, didCreateInitialURLRequest: urlRequest)
        composite.request(data, didAdaptInitialRequest: urlRequest, to: urlRequest)
        composite.request(data, didFailToAdaptURLRequest: urlRequest, withError: error)
        composite.request(data, didCreateURLRequest: urlRequest)
        composite.request(data, didValidateRequest: urlRequest, response: head, data: nil, withResult: .success(()))
        composite.request(data, didParseResponse: DataResponse<Data?, HTTPError>(
            request: urlRequest, response: head, data: nil, result: .success(nil), timing: timing
        ))
        composite.request(data, didParseResponse: DataResponse<String, HTTPError>(
            request: urlRequest, response: head, data: nil, result: .success("s"), timing: timing
        ))
        composite.request(stream, didValidateRequest: urlRequest, response: head, withResult: .success(()))
        composite.request(download, didValidateRequest: urlRequest, response: head, fileURL: nil, withResult: .success(()))
        composite.request(download, didParseResponse: DownloadResponse<URL?, HTTPError>(
            request: urlRequest, response: head, fileURL: nil, resumeData: nil, result: .success(nil), timing: timing
        ))
        composite.request(download, didParseResponse: DownloadResponse<Int, HTTPError>(
            request: urlRequest, response: head, fileURL: nil, resumeData: nil, result: .success(1), timing: timing
        ))
        composite.request(upload, didCreateUploadable: .data(Data()))
        composite.request(upload, didFailToCreateUploadableWithError: error)
        composite.request(download, didCreateDestinationURL: url)
        composite.sessionDidBecomeInvalid(withError: nil)
        composite.request(data, didFailTask: task, earlyWithError: error)
        composite.request(data, didGatherTiming: timing)
        composite.request(data, didReceiveChallengeIn: head)
        composite.request(data, willPerformHTTPRedirection: head, newRequest: urlRequest)
        composite.request(data, didReceive: Data())
        composite.request(data, didSendBodyData: progress)
        composite.request(download, didWriteData: progress)
        composite.request(download, didResumeAtOffset: 1, expectedTotalBytes: nil)
        composite.request(download, didFinishDownloadingUsing: task, with: .success(url))
        composite.request(upload, didProvideInputStream: InputStream(data: Data()))
        composite.request(stream, didParseStream: Result<Int, HTTPError>.success(1))

        let expected = [
            "resume", "suspend", "retrying", "cancel", "finish", "head",
            "task created", "task resumed", "task suspended", "task cancelled", "task completed",
            "not built", "built", "adapted", "not adapted", "sent",
            "data validated", "data parsed", "data parsed as String", "stream validated", "download validated",
            "download parsed", "download parsed as Int", "uploadable", "no uploadable", "destination", "invalid",
            "failed early", "timing", "challenge", "redirect", "data", "body sent", "written", "resumed at",
            "downloaded", "input stream", "stream parsed as Int",
        ]
        #expect(await first.settled() == expected)
        #expect(await second.settled() == expected)
    }

    /// Alamofire's way to give a new session another's monitors.
    @Test func aSessionGivenAnothersEventMonitorIsHeardByItsMonitors() async throws {
        let fixture = PolicyFixture()
        let monitor = EveryEvent()
        let original = fixture.makeSession(eventMonitors: [monitor])
        #expect(original.eventMonitor.monitors.count == 1)
        let copy = fixture.makeSession(eventMonitors: [original.eventMonitor])
        let request = copy.request(fixture.url("/json"))
        #expect(request.eventMonitor?.monitors.first is CompositeEventMonitor)
        let result = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value != nil)
        #expect(await eventually { monitor.names.events.contains("finish") })
        let heard = await monitor.settled()
        #expect(heard.first == "resume")
        #expect(heard.contains("sent") && heard.contains("head"))
        #expect(heard.last == "data parsed as Data", "the handler's parse is told after the request finished")
    }

    @Test func aSessionWithoutMonitorsHasAnEmptyOneAndItsRequestsNone() {
        let session = PolicyFixture().makeSession()
        #expect(session.eventMonitor.monitors.isEmpty)
        #expect(session.request("https://example.com/").eventMonitor == nil)
    }

    // MARK: - A request's own monitors

    @Test func aMonitorAddedToARequestHearsWhatASessionsMonitorHears() async throws {
        let fixture = PolicyFixture()
        let sessionMonitor = EveryEvent()
        let viaSession = fixture.makeSession(eventMonitors: [sessionMonitor]).request(fixture.url("/json"))
        _ = await response { viaSession.responseData(queue: handlerQueue, completionHandler: $0) }
        let requestMonitor = EveryEvent()
        let session = fixture.makeSession()
        let request = session.request(fixture.url("/json")).eventMonitor(requestMonitor)
        #expect(request.eventMonitor?.monitors.count == 1)
        _ = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(await eventually { requestMonitor.names.events.contains("data parsed as Data") })
        #expect(await eventually { sessionMonitor.names.events.contains("data parsed as Data") })
        let heard = await requestMonitor.settled()
        #expect(heard.first == "resume" && heard.contains("sent") && heard.contains("finish"))
        // Less the session's own end: that session is gone (a request's monitor is not told).
        let sessionHeard = await sessionMonitor.settled().filter { $0 != "invalid" }
        #expect(heard == sessionHeard, "\(heard) vs \(sessionHeard)")
        // Another request of the same session does not hear of it.
        _ = await response { session.request(fixture.url("/json")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(await requestMonitor.settled() == heard)
    }

    /// Each event goes to the session's monitors, then to the request's in
    /// the order they were added: on one serial queue, they alternate.
    @Test func theSessionsMonitorsHearEachEventFirstThenTheRequestsInAddedOrder() async throws {
        let fixture = PolicyFixture()
        let queue = DispatchQueue(label: "shared")
        let names = Recorder<String>()
        let session = fixture.makeSession(eventMonitors: [EveryEvent(label: "S ", queue: queue, names: names)])
        let request = session.request(fixture.url("/json"))
            .eventMonitor(EveryEvent(label: "A ", queue: queue, names: names))
            .eventMonitor(EveryEvent(label: "B ", queue: queue, names: names))
        #expect(request.eventMonitor?.monitors.count == 3)
        _ = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(await eventually { names.events.contains("B data parsed as Data") })
        let drained = Latch()
        queue.async { drained.arrive() }
        _ = await drained.wait()
        let heard = names.events
        #expect(heard.count % 3 == 0 && heard.count >= 9)
        for start in stride(from: 0, to: heard.count - 2, by: 3) {
            let event = heard[start].dropFirst(2)
            #expect(heard[start..<(start + 3)].elementsEqual(["S \(event)", "A \(event)", "B \(event)"]), "\(heard[start..<(start + 3)])")
        }
    }

    /// Two threads adding a request's first monitors at once: the one whose
    /// box loses the race adds to the winner's, and neither monitor is lost.
    @Test func monitorsAddedAtOnceFromTwoThreadsAreAllKept() {
        let session = PolicyFixture().makeSession()
        for _ in 0..<500 {
            let request = session.request("https://example.com/")
            let monitors = [EveryEvent(), EveryEvent()]
            DispatchQueue.concurrentPerform(iterations: 2) { request.eventMonitor(monitors[$0]) }
            #expect(request.eventMonitor?.monitors.count == 2)
            request.cancel()
        }
    }
}
