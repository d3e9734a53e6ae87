import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// `Session.eventMonitor` and `Request.eventMonitor` (Alamofire's), and the
/// composite they hand out: an `EventMonitor` that forwards every event.
@Suite("CompositeEventMonitor: a session's monitors as one, forwarding every event")
struct CompositeEventMonitorTests {
    /// Names every event it hears, on its own serial queue. Every requirement
    /// of `EventMonitor` is here: one the composite failed to forward would
    /// reach the protocol's default, which does nothing.
    final class EveryEvent: EventMonitor {
        let queue = DispatchQueue(label: "every-event")
        let names = Recorder<String>()

        func requestDidResume(_ request: Request) { names.append("resume") }
        func requestDidSuspend(_ request: Request) { names.append("suspend") }
        func requestIsRetrying(_ request: Request) { names.append("retrying") }
        func requestDidCancel(_ request: Request) { names.append("cancel") }
        func requestDidFinish(_ request: Request) { names.append("finish") }
        func request(_ request: Request, didReceive response: HTTPURLResponse) { names.append("head") }
        func request(_ request: Request, didCreateTask task: RequestTask) { names.append("task created") }
        func request(_ request: Request, didResumeTask task: RequestTask) { names.append("task resumed") }
        func request(_ request: Request, didSuspendTask task: RequestTask) { names.append("task suspended") }
        func request(_ request: Request, didCancelTask task: RequestTask) { names.append("task cancelled") }
        func request(_ request: Request, didCompleteTask task: RequestTask, with error: HTTPError?) { names.append("task completed") }
        func request(_ request: Request, didFailToCreateURLRequestWithError error: HTTPError) { names.append("not built") }
        func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) { names.append("built") }
        func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
            names.append("adapted")
        }
        func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: HTTPError) {
            names.append("not adapted")
        }
        func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) { names.append("sent") }
        func request(
            _ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?,
            withResult result: Request.ValidationResult
        ) { names.append("data validated") }
        func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, HTTPError>) { names.append("data parsed") }
        func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, HTTPError>) {
            names.append("data parsed as \(Value.self)")
        }
        func request(
            _ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
            withResult result: Request.ValidationResult
        ) { names.append("stream validated") }
        func request(
            _ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
            withResult result: Request.ValidationResult
        ) { names.append("download validated") }
        func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, HTTPError>) {
            names.append("download parsed")
        }
        func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, HTTPError>) {
            names.append("download parsed as \(Value.self)")
        }
        func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) { names.append("uploadable") }
        func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: HTTPError) { names.append("no uploadable") }
        func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) { names.append("destination") }
        func sessionDidBecomeInvalid(withError error: (any Error)?) { names.append("invalid") }
        func request(_ request: Request, didFailTask task: RequestTask, earlyWithError error: HTTPError) { names.append("failed early") }
        func request(_ request: Request, didGatherTiming timing: ResponseTiming) { names.append("timing") }
        func request(_ request: Request, didReceiveChallengeIn response: HTTPURLResponse) { names.append("challenge") }
        func request(_ request: Request, willPerformHTTPRedirection response: HTTPURLResponse, newRequest: URLRequest) {
            names.append("redirect")
        }
        func request(_ request: Request, didReceive data: Data) { names.append("data") }
        func request(_ request: Request, didSendBodyData progress: TransferProgress) { names.append("body sent") }
        func request(_ request: DownloadRequest, didWriteData progress: TransferProgress) { names.append("written") }
        func request(_ request: DownloadRequest, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) {
            names.append("resumed at")
        }
        func request(_ request: DownloadRequest, didFinishDownloadingUsing task: RequestTask, with result: Result<URL, HTTPError>) {
            names.append("downloaded")
        }
        func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) { names.append("input stream") }
        func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, HTTPError>) {
            names.append("stream parsed as \(Value.self)")
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
}
