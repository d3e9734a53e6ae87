import DeferredQueue
import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
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

    /// Alamofire's `DataRequest.data`: the final body, once there is one.
    @Test func aDataRequestsDataIsItsBodyOnceFinished() async throws {
        let session = Session(transport: transport, startRequestsImmediately: false)
        let request = session.request("http://api.invalid/items")
        #expect(request.data == nil, "nothing received yet")
        _ = try await request.resume().serializingData().value
        #expect(request.data == Data(#"{"ok":true}"#.utf8))
        let refused = Session(transport: MockTransport { _ in .failure(.cannotConnectToHost) }).request("http://api.invalid/")
        _ = await refused.serializingData().result
        #expect(refused.data == nil && refused.error != nil)
    }

    /// Alamofire's `serializationDuration`: how long the serializer ran,
    /// carried through `map`; on a download's response too.
    @Test func aResponseSaysHowLongItsSerializerTook() async {
        struct Slow: ResponseSerializer {
            func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> Int {
                Thread.sleep(forTimeInterval: 0.02)
                return data?.count ?? 0
            }
        }
        let session = Session(transport: transport)
        let response = await withCheckedContinuation { done in
            session.request("http://api.invalid/").response(queue: handlerQueue, responseSerializer: Slow()) { done.resume(returning: $0) }
        }
        #expect(response.serializationDuration >= 0.02)
        #expect(response.map { $0 + 1 }.serializationDuration == response.serializationDuration)
        let download = await withCheckedContinuation { done in
            session.download("http://api.invalid/file").response(queue: handlerQueue, responseSerializer: Slow()) { done.resume(returning: $0) }
        }
        defer { download.fileURL.map { try? FileManager.default.removeItem(at: $0) } }
        #expect(download.serializationDuration >= 0.02)
    }

    /// Alamofire's `Request.redirectHandler`: what `redirect(using:)` set.
    @Test func aRequestsRedirectHandlerIsTheOneItWasGiven() {
        let session = Session(transport: transport, startRequestsImmediately: false)
        #expect(session.request("http://api.invalid/").redirectHandler == nil, "the session's decides")
        let request = session.request("http://api.invalid/").redirect(using: .doNotFollow)
        guard case .doNotFollow? = request.redirectHandler?.behavior else {
            Issue.record("\(String(describing: request.redirectHandler))")
            return
        }
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
        #expect((DeferredError.timedOut as any Error).asHTTPError == nil)
    }

    /// Awaiting a `serializing…` deferred throws ``DeferredError/cancelled``
    /// when its Task is cancelled; Alamofire's `DataTask` throws
    /// `explicitlyCancelled`, which code checks through `asAFError`.
    @Test func aCancelledSerializingTaskThrowsWhatAsHTTPErrorCallsCancelled() async throws {
        let server = try LoopbackServer { _ in .neverRespond }
        defer { server.shutdown() }
        let session = Session(transport: URLSessionTransport())
        let started = Latch()
        let task = Task {
            let deferred = session.request(server.url("/"), timeout: .infinity).serializingData()
            started.arrive()
            return try await deferred.value
        }
        #expect(await started.wait())
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled task returned a value")
        } catch {
            #expect(error.asHTTPError?.isExplicitlyCancelledError == true, "\(error)")
            #expect(error.asHTTPError(orFailWith: "an HTTPError").isCancelled)
        }
    }

    @Test func aConfigurationsHeadersAreItsAdditionalHeaders() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.headers = ["X-Token": "a", "Accept": "text/plain"]
        #expect(configuration.httpAdditionalHeaders?["X-Token"] as? String == "a")
        #expect(configuration.headers.dictionary == ["X-Token": "a", "Accept": "text/plain"])
        configuration.httpAdditionalHeaders = ["X-Number": 1, "X-Text": "t"]
        #expect(configuration.headers.dictionary == ["X-Text": "t"], "only string fields are headers")
    }

    /// A download's validator runs on its handler queue after the request
    /// finished; the request stays alive until it ran, so one written as
    /// Alamofire's tests write it (`[unowned self]`) reads it safely, even
    /// when nothing else holds the request.
    @Test func aDownloadValidatorMayHoldItsRequestUnowned() async throws {
        let session = Session(transport: transport)
        let file = try #require(await withCheckedContinuation { done in
            session.download("http://api.invalid/file")
                .validateFileIsWhereTheRequestSays()
                .responseURL(queue: handlerQueue) { done.resume(returning: $0.fileURL) }
        })
        #expect(FileManager.default.fileExists(atPath: file.path), "validated, then handed over")
        try? FileManager.default.removeItem(at: file)
    }

    /// A move that fails reports what `FileManager` would (Alamofire moves
    /// with it): a missing directory is `CocoaError.fileNoSuchFile`.
    @Test func aDestinationInAMissingDirectoryFailsAsFileManagerWould() async throws {
        let session = Session(transport: transport)
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("missing-\(UUID().uuidString)").appendingPathComponent("file.json")
        let result = await session.download("http://api.invalid/file", to: { _, _ in (destination, []) }).serializingDownloadedFileURL().result
        guard case .failure(let error) = result, case .downloadedFileMoveFailed(let moveError, _, _)? = error.asHTTPError else {
            Issue.record("the move fails: \(result)")
            return
        }
        #expect((moveError as? CocoaError)?.code == .fileNoSuchFile, "\(moveError)")
    }

    /// A file upload checks its URL before its file, as Alamofire's; a
    /// missing file fails a request that was built, and says so.
    @Test func aFileUploadReportsABadURLFirstAndAMissingFileWithItsRequest() async throws {
        let session = Session(transport: transport)
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        let badURL = await session.upload(missing, to: "not a url").serializingData().result
        #expect(badURL.failure?.asHTTPError?.isInvalidURLError == true, "\(badURL)")
        let response = await withCheckedContinuation { done in
            session.upload(missing, to: "http://api.invalid/files").response(queue: handlerQueue) { done.resume(returning: $0) }
        }
        guard case .failure(.uploadFileUnavailable(let file)) = response.result else {
            Issue.record("\(response.result)")
            return
        }
        #expect(file == missing)
        #expect(response.request?.url?.absoluteString == "http://api.invalid/files", "the request as built")
        #expect(transport.requests.isEmpty, "nothing sent")
    }

    /// The content types a validation failure lists are sorted, as Alamofire's.
    @Test func anUnacceptableContentTypeListsTheAcceptableOnesSorted() async throws {
        let session = Session(transport: transport)
        let result = await session.request("http://api.invalid/json")
            .validate(contentType: ["text/plain", "image/png", "application/xml"]).serializingData().result
        guard case .failure(let error) = result else {
            Issue.record("application/json is not acceptable")
            return
        }
        #expect(error.asHTTPError?.acceptableContentTypes == ["application/xml", "image/png", "text/plain"])
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

extension DownloadRequest {
    fileprivate func validateFileIsWhereTheRequestSays() -> Self {
        validate { [unowned self] _, _, fileURL in
            fileURL != nil && fileURL == self.fileURL ? .success(()) : .failure(TestError(1))
        }
    }
}
