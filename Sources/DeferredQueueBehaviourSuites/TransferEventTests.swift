import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

/// Records the transfer events (Alamofire's `URLSession` events, made
/// transport-neutral) beside the request events they fall between.
final class TransferMonitor: EventMonitor {
    let queue = DispatchQueue(label: "tests.transfer-monitor")
    let events = Recorder<String>()
    let received = Recorder<Data>()
    let sent = Recorder<TransferProgress>()
    let written = Recorder<TransferProgress>()
    let parsed = Recorder<String>()
    let timings = Recorder<ResponseTiming>()
    let streams = Recorder<InputStream.Status>()
    let invalidated = Latch(count: 1)

    func requestDidResume(_ request: Request) { events.append("resume") }
    func requestDidFinish(_ request: Request) { events.append("finish") }
    func request(_ request: Request, didReceive response: HTTPURLResponse) { events.append("response:\(response.statusCode)") }
    func request(_ request: Request, didCompleteTask task: RequestTask, with error: HTTPError?) { events.append("complete:\(task.attempt)") }
    func sessionDidBecomeInvalid(withError error: (any Error)?) {
        events.append("invalid:\(error == nil ? "nil" : "error")")
        invalidated.arrive()
    }
    func request(_ request: Request, didGatherTiming timing: ResponseTiming) {
        events.append("timing")
        timings.append(timing)
    }
    func request(_ request: Request, willPerformHTTPRedirection response: HTTPURLResponse, newRequest: URLRequest) {
        events.append("redirect:\(response.statusCode)->\(newRequest.url?.path ?? "?")")
    }
    func request(_ request: Request, didReceive data: Data) { received.append(data) }
    func request(_ request: Request, didSendBodyData progress: TransferProgress) { sent.append(progress) }
    func request(_ request: DownloadRequest, didWriteData progress: TransferProgress) { written.append(progress) }
    func request(_ request: DownloadRequest, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) {
        events.append("resumeAt:\(fileOffset)/\(expectedTotalBytes.map(String.init) ?? "?")")
    }
    func request(_ request: DownloadRequest, didFinishDownloadingUsing task: RequestTask, with result: Result<URL, HTTPError>) {
        switch result {
        case .success(let url): events.append("downloaded:\(url.lastPathComponent)")
        case .failure(let error): events.append("downloadFailed:\(error.kind)")
        }
    }
    func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) { events.append("destination:\(url.lastPathComponent)") }
    func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) {
        events.append("inputStream")
        streams.append(stream.streamStatus)
    }
    func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, HTTPError>) {
        parsed.append((try? result.get()).map { "\($0)" } ?? "failure")
    }

    var receivedBytes: Data { received.events.reduce(into: Data()) { $0.append($1) } }
}

/// What the fixture's `/echo` says of a body.
private struct Echoed: Decodable, Sendable {
    let bodyLength: Int64
    let body: String
}

@Suite("Event monitors: transfer events (bytes, progress, redirects, timing, files, streams), on every transport")
struct TransferEventTests {
    @Test func aCollectedBodyIsHeardWholeAndTheTimingComesJustBeforeTheFinish() async throws {
        let fixture = try Fixture()
        let monitor = TransferMonitor()
        var session: Session? = TestTransport.makeSession(eventMonitors: [monitor])
        let got = await response(within: 120) { session!.request(fixture.url("/big")).responseData(queue: handlerQueue, completionHandler: $0) }
        await drained(monitor.queue)
        #expect(monitor.receivedBytes == got?.data)
        #expect(monitor.receivedBytes.count == Fixture.bigBodySize)
        #expect(monitor.events.events == ["resume", "response:200", "complete:1", "timing", "finish"])
        let timing = try #require(monitor.timings.events.first)
        #expect(timing.start <= timing.end)
        #expect(timing.start == got?.timing.start)

        session = nil
        #expect(await monitor.invalidated.wait(seconds: 120))
        #expect(monitor.events.events.last == "invalid:nil")
    }

    /// Without monitors, validators or handlers that read it, no
    /// `HTTPURLResponse` is made on a transport that reports heads
    /// (AsyncHTTPClient); reading `response` makes it, once.
    @Test func theResponseIsMadeOnlyWhenAHandlerReadsIt() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let got = try #require(await response(within: 120) {
            session.request(fixture.url("/json")).validate().responseDecodable(of: JSON.self, queue: handlerQueue, completionHandler: $0)
        })
        let head = try #require(got.head)
        #expect(got.value?["count"].int == 3)
        if head.isFromTheWire { #expect(!head.isResponseMade, "validation, serialization and the session judged the head alone") }
        #expect(got.response?.statusCode == 200)
        #expect(head.isResponseMade)
        #expect(got.response === got.response)
    }

    @Test func aFollowedRedirectIsToldWithTheRequestSentNext() async throws {
        let fixture = try Fixture()
        let monitor = TransferMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let got = await response(within: 120) { session.request(fixture.url("/redirect")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(got?.response?.statusCode == 200)
        await drained(monitor.queue)
        #expect(monitor.events.events == [
            "resume", "response:302", "complete:1", "redirect:302->/json", "response:200", "complete:2", "timing", "finish",
        ])
    }

    @Test func anUploadsProgressIsHeardUpToItsWholeBody() async throws {
        let fixture = try Fixture()
        let monitor = TransferMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
        let got = await response(within: 120) {
            session.upload(body, to: fixture.url("/echo")).responseDecodable(of: Echoed.self, queue: handlerQueue, completionHandler: $0)
        }
        #expect(got?.value?.bodyLength == Int64(body.count))
        await drained(monitor.queue)
        let sent = monitor.sent.events
        #expect(!sent.isEmpty)
        #expect(sent.last?.completed == Int64(body.count))
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $0.completed <= $1.completed })
    }

    @Test func aDownloadIsHeardChunkByChunkThenMovedThenPlaced() async throws {
        let fixture = try Fixture()
        let monitor = TransferMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("big.bin")
        let got = await downloadResponse(within: 120) {
            session.download(fixture.url("/big"), to: { _, _ in (destination, []) }).responseURL(queue: handlerQueue, completionHandler: $0)
        }
        #expect(got?.fileURL == destination)
        await drained(monitor.queue)
        let written = monitor.written.events
        #expect(written.last?.completed == Int64(Fixture.bigBodySize))
        #expect(zip(written, written.dropFirst()).allSatisfy { $0.completed <= $1.completed })
        // A transport that writes the file itself hands over no chunks.
        let received = monitor.receivedBytes
        let file = try Data(contentsOf: destination)
        #expect(received.isEmpty || received == file)
        let events = monitor.events.events
        #expect(events.filter { $0.hasPrefix("downloaded") || $0.hasPrefix("destination") } == ["downloaded:big.bin", "destination:big.bin"])
    }

    @Test func aDownloadThatCannotBeMovedIsToldItsFailure() async throws {
        let fixture = try Fixture()
        let monitor = TransferMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let missing = FileManager.default.temporaryDirectory
            .appendingPathComponent("DeferredQueueTests-missing-\(UUID().uuidString)").appendingPathComponent("file.json")
        let got = await downloadResponse(within: 120) {
            session.download(fixture.url("/json"), to: { _, _ in (missing, []) }).responseURL(queue: handlerQueue, completionHandler: $0)
        }
        #expect(got?.error?.kind == "moveFailed")
        await drained(monitor.queue)
        #expect(monitor.events.events.filter { $0.hasPrefix("download") || $0.hasPrefix("destination") } == ["downloadFailed:moveFailed"])
    }

    @Test func aStreamsChunksAndParsedValuesAreHeardInOrder() async throws {
        let fixture = try Fixture()
        let monitor = TransferMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let done = Latch(count: 1)
        let strings = Recorder<String>()
        session.streamRequest(fixture.url("/text")).responseStreamString(on: handlerQueue) { stream in
            switch stream.event {
            case .stream(let result): if case .success(let text) = result { strings.append(text) }
            case .complete: done.arrive()
            }
        }
        #expect(await done.wait(seconds: 120))
        await drained(monitor.queue)
        #expect(String(decoding: monitor.receivedBytes, as: UTF8.self) == "héllo wörld")
        #expect(monitor.parsed.events == strings.events)
        #expect(monitor.parsed.events.joined() == "héllo wörld")
    }

    /// ClosureEventMonitor has a closure for each transfer event.
    @Test func closureMonitorsHearEveryTransferEvent() async throws {
        let fixture = try Fixture()
        let heard = Recorder<String>()
        let monitor = ClosureEventMonitor()
        monitor.sessionDidBecomeInvalidWithError = { _ in heard.append("invalid") }
        monitor.requestDidGatherTiming = { _, _ in heard.append("timing") }
        monitor.requestWillPerformHTTPRedirection = { _, _, _ in heard.append("redirect") }
        monitor.requestDidReceiveData = { _, _ in heard.append("data") }
        monitor.requestDidSendBodyData = { _, _ in heard.append("sent") }
        monitor.requestDidWriteData = { _, _ in heard.append("written") }
        monitor.requestDidFinishDownloadingUsingTaskWithResult = { _, _, _ in heard.append("downloaded") }
        monitor.requestDidProvideInputStream = { _, _ in heard.append("stream") }
        var session: Session? = TestTransport.makeSession(eventMonitors: [monitor])
        _ = await response(within: 120) { session!.request(fixture.url("/redirect")).responseData(queue: handlerQueue, completionHandler: $0) }
        _ = await response(within: 120) {
            session!.upload(Data(repeating: 1, count: 100_000), to: fixture.url("/echo")).responseData(queue: handlerQueue, completionHandler: $0)
        }
        _ = await response(within: 120) {
            session!.upload(InputStream(data: Data("x".utf8)), to: fixture.url("/echo")).responseData(queue: handlerQueue, completionHandler: $0)
        }
        let downloaded = await downloadResponse(within: 120) { session!.download(fixture.url("/json")).responseURL(queue: handlerQueue, completionHandler: $0) }
        if let file = downloaded?.fileURL { try? FileManager.default.removeItem(at: file) }
        session = nil
        #expect(await eventually { heard.events.contains("invalid") })
        await drained(monitor.queue)
        #expect(Set(heard.events) == ["invalid", "timing", "redirect", "data", "sent", "written", "downloaded", "stream"])
        #expect(heard.events.filter { $0 == "timing" }.count == 4, "once per request")
        #expect(heard.events.filter { $0 == "invalid" }.count == 1)
    }

    @Test func anInputStreamIsToldOnceReadAndClosed() async throws {
        let fixture = try Fixture()
        let monitor = TransferMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let body = Data("a body from a stream".utf8)
        let got = await response(within: 120) {
            session.upload(InputStream(data: body), to: fixture.url("/echo"))
                .responseDecodable(of: Echoed.self, queue: handlerQueue, completionHandler: $0)
        }
        #expect(got?.value?.body == "a body from a stream")
        await drained(monitor.queue)
        #expect(monitor.events.events.filter { $0 == "inputStream" }.count == 1)
        #expect(monitor.streams.events == [.closed])
    }
}
