import DeferredQueue
import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// Session, error and configuration names an Alamofire test suite reaches for.
@Suite("Alamofire names: rootQueue, requestSetup, invalidURL(url:), asHTTPError, configuration headers, fileURL")
struct AlamofireSessionNamesTests {
    private let transport = MockTransport { _ in .json(#"{"ok":true}"#) }

    /// `rootQueue` is the serial queue transport events run on: a download
    /// progress handler given it runs there, before the response handler.
    @Test func rootQueueIsWhereTransportEventsRun() async throws {
        let session = Session(transport: transport)
        #expect(session.rootQueue === transport.callbackQueue)
        let key = DispatchSpecificKey<Bool>()
        session.rootQueue.setSpecific(key: key, value: true)
        let onRoot = Recorder<Bool>()
        let file = try #require(await withCheckedContinuation { done in
            session.download("http://api.invalid/file")
                .downloadProgress(queue: session.rootQueue) { _ in onRoot.append(DispatchQueue.getSpecific(key: key) == true) }
                .responseURL(queue: handlerQueue) { done.resume(returning: $0.fileURL) }
        })
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(!onRoot.events.isEmpty && onRoot.events.allSatisfy { $0 })
    }

    /// Both setups build the request as it is made and set it up as it starts.
    @Test(arguments: [Session.RequestSetup.lazy, .eager])
    func eitherSetupBuildsTheRequestAtOnceAndSendsItOnResume(setup: Session.RequestSetup) async throws {
        let session = Session(transport: transport, startRequestsImmediately: false, requestSetup: setup)
        #expect(session.requestSetup == setup)
        let request = session.request("http://api.invalid/items", headers: ["X-A": "1"])
        #expect(request.cURLDescription().contains("X-A: 1"))
        #expect(request.state == .initialized && transport.requests.isEmpty)
        _ = try await request.resume().serializingData().value
        #expect(transport.requests.count == 1)
    }

    @Test func invalidURLTakesAlamofiresLabel() throws {
        let error = HTTPError.invalidURL(url: "not a url")
        guard case .invalidURL(let text) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(text == "not a url")
        #expect(HTTPError.invalidURL(url: URL(string: "https://example.com/a")!).description.contains("https://example.com/a"))
    }

    @Test func anyErrorConvertsToHTTPErrorWhenItIsOne() {
        let error: any Error = HTTPError.cancelled
        #expect(error.asHTTPError?.isCancelled == true)
        #expect(error.asHTTPError(orFailWith: "an HTTPError").isCancelled)
        #expect((URLError(.timedOut) as any Error).asHTTPError == nil)
    }

    @Test func aConfigurationsHeadersAreItsAdditionalHeaders() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.headers = ["X-Token": "a", "Accept": "text/plain"]
        #expect(configuration.httpAdditionalHeaders?["X-Token"] as? String == "a")
        #expect(configuration.headers.dictionary == ["X-Token": "a", "Accept": "text/plain"])
        configuration.httpAdditionalHeaders = ["X-Number": 1, "X-Text": "t"]
        #expect(configuration.headers.dictionary == ["X-Text": "t"], "only string fields are headers")
    }

    /// `fileURL` is where the finished download's file is; `nil` before and on failure.
    @Test func aDownloadSaysWhereItsFileIs() async throws {
        let destinations = Recorder<URL>()
        let monitor = ClosureEventMonitor()
        monitor.requestDidCreateDestinationURL = { _, url in destinations.append(url) }
        let session = Session(transport: transport, eventMonitors: [monitor])
        let download = session.download("http://api.invalid/file", shouldAutomaticallyResume: false)
        #expect(download.fileURL == nil)
        let url = try await download.resume().serializingDownloadedFileURL().value
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(download.fileURL == url)
        await drained(monitor.queue)
        #expect(destinations.events == [url], "monitors hear where it went")
        let refused = Session(transport: MockTransport { _ in .failure(.cannotConnectToHost) }).download("http://api.invalid/file")
        _ = try? await refused.serializingDownloadedFileURL().value
        #expect(refused.fileURL == nil)
    }
}
