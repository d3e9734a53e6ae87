import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// Removes the request's file before the attempt is sent, after the
/// session checked the file as the request was made, and puts a FIFO in
/// its place or nothing.
private struct FileSwappingAdapter: RequestAdapter {
    let file: URL
    let makesFIFO: Bool

    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        try FileManager.default.removeItem(at: file)
        if makesFIFO {
            guard mkfifo(file.path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
        return urlRequest
    }
}

/// What `Reply.echo` says about a body.
private struct BodyEcho: Decodable, Sendable {
    let method: String
    let bodyLength: Int64
    let bodyDigest: String
    let headers: [String: String]
}

/// What `Reply.multipartEcho` says about each part.
private struct PartsEcho: Decodable, Sendable {
    struct Part: Decodable, Sendable {
        let name: String?
        let filename: String?
        let contentType: String?
        let length: Int64
        let digest: String
        let body: String?
    }
    let parts: [Part]
}

@Suite("Uploads: data, files and multipart forms, streamed from disk")
struct UploadTests {
    static func echoServer() throws -> LoopbackServer {
        try LoopbackServer(bodyBufferLimit: 1 << 20, oversizedBodies: .truncate) { request in
            request.path == "/parts" ? .multipartEcho(request) : .echo(request)
        }
    }

    @Test func dataIsSentAsTheBody() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let payload = Data("hello upload".utf8)
        let result = await response {
            session.upload(payload, to: server.url("/"), method: .put).responseDecodable(of: BodyEcho.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value)
        #expect(echo.method == "PUT")
        #expect(echo.bodyLength == Int64(payload.count))
        #expect(echo.bodyDigest == BodyDigest.hexadecimal(BodyDigest.of(payload)))
    }

    @Test func aFileIsStreamedWithProgressEndingAtItsSize() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let length: Int64 = 8 << 20
        let file = try patternFile(length: length)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = TestTransport.makeSession()
        let progress = Recorder<TransferProgress>()
        let result = await response {
            session.upload(file, to: server.url("/")).uploadProgress(queue: handlerQueue) { progress.append($0) }
                .responseDecodable(of: BodyEcho.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value, "\(String(describing: result?.error))")
        #expect(echo.bodyLength == length)
        #expect(echo.bodyDigest == BodyDigest.hexadecimal(try BodyDigest.ofFile(at: file)))
        let sent = progress.events.map(\.completed)
        #expect(!sent.isEmpty)
        #expect(sent == sent.sorted(), "monotonic")
        #expect(sent.last == length, "ends at the total")
    }

    /// Alamofire has `uploadProgress` on every request: a POST's `httpBody`
    /// is followed out as an upload's body is.
    @Test func aDataRequestsBodyIsFollowedOutByUploadProgress() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let payload = Data((0..<(512 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var request = URLRequest(url: server.url("/"))
        request.httpMethod = "POST"
        request.httpBody = payload
        let progress = Recorder<TransferProgress>()
        let result = await response {
            session.request(request).uploadProgress(queue: handlerQueue) { progress.append($0) }
                .responseDecodable(of: BodyEcho.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value, "\(String(describing: result?.error))")
        #expect(echo.bodyLength == Int64(payload.count))
        #expect(echo.bodyDigest == BodyDigest.hexadecimal(BodyDigest.of(payload)))
        let sent = progress.events
        #expect(!sent.isEmpty)
        #expect(sent.map(\.completed) == sent.map(\.completed).sorted(), "monotonic")
        #expect(sent.last?.completed == Int64(payload.count), "ends at the total")
        #expect(sent.allSatisfy { $0.expected == Int64(payload.count) })
    }

    /// A download's request body (a POST that answers with a file) is followed too.
    @Test func aDownloadRequestsBodyIsFollowedOutByUploadProgress() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let payload = Data(repeating: 0x5A, count: 256 << 10)
        var request = URLRequest(url: server.url("/"))
        request.httpMethod = "POST"
        request.httpBody = payload
        let progress = Recorder<TransferProgress>()
        let response = await session.download(request).uploadProgress(queue: handlerQueue) { progress.append($0) }
            .serializingDecodable(BodyEcho.self).response
        defer { response.fileURL.map { try? FileManager.default.removeItem(at: $0) } }
        let echo = try response.result.get()
        #expect(echo.bodyLength == Int64(payload.count))
        #expect(progress.events.last?.completed == Int64(payload.count), "ends at the total")
    }

    @Test func aRequestWithoutABodyReportsNoUploadProgress() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let progress = Recorder<TransferProgress>()
        let result = await response {
            session.request(server.url("/")).uploadProgress(queue: handlerQueue) { progress.append($0) }
                .responseDecodable(of: BodyEcho.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value, "\(String(describing: result?.error))")
        #expect(echo.bodyLength == 0)
        #expect(progress.events.isEmpty)
    }

    @Test(arguments: ["/no/such/file", "/tmp"])
    func aMissingFileOrADirectoryFailsEveryHandlerAndSendsNothing(_ path: String) async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let kinds = Recorder<String>()
        let done = Latch(count: 2)
        session.upload(URL(fileURLWithPath: path), to: server.url("/"))
            .response(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
            .responseData(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await done.wait(seconds: 120))
        #expect(kinds.events == ["uploadFileUnavailable", "uploadFileUnavailable"])
        #expect(server.requestCount == 0)
    }

    /// On Linux, corelibs read a file body asynchronously and un-paused
    /// libcurl when a read completed, `try!`ing a call that fails once the
    /// transfer ended meanwhile: a file upload cancelled, timed out or
    /// answered while a read was pending stopped the process
    /// (`EasyHandle.swift: 'try!' … libcurl.Easy Code=43`). Hundreds of
    /// uploads cancelled at their start, and half again as their body goes,
    /// must all end cancelled, in this process.
    @Test func fileUploadsCancelledAsTheyStartAllEndCancelled() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let file = try patternFile(length: 4 << 20)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = TestTransport.makeSession()
        let count = 300
        let kinds = Recorder<String>()
        let done = Latch(count: count)
        for index in 0..<count {
            let request = session.upload(file, to: server.url("/"))
            request.response(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
            if index.isMultiple(of: 2) {
                request.cancel()
            } else {
                request.uploadProgress(queue: handlerQueue) { _ in request.cancel() }
            }
        }
        #expect(await done.wait(seconds: 120))
        #expect(Set(kinds.events).isSubset(of: ["cancelled", "ok"]), "\(Set(kinds.events))")
    }

    /// A file that became a FIFO after the request was made: libcurl's
    /// thread blocked opening it, and with it the whole URLSession (its
    /// cancels and its next tasks). Refused unsent, at once.
    @Test func aFileThatBecameAFIFOFailsUnsentAndTheSessionGoesOn() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        let (error, session) = try await uploadFailing(from: directory, to: server, becauseTheFileIsSwappedForAFIFO: true)
        #expect(error.code == .cannotOpenFile, "\(TestTransport.name)")
        #expect(error.localizedDescription.contains("not a regular file"), "\(TestTransport.name): \(error.localizedDescription)")
        let next = await response(within: 60) { session.upload(Data("next".utf8), to: server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(next?.value != nil, "\(TestTransport.name): \(String(describing: next?.result))")
    }

    /// A file removed after the request was made fails the attempt unsent,
    /// with the code each transport gives for it.
    @Test func aFileRemovedBeforeTheAttemptFailsUnsent() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        let (error, _) = try await uploadFailing(from: directory, to: server, becauseTheFileIsSwappedForAFIFO: false)
        #expect(error.code == .fileDoesNotExist, "\(TestTransport.name)")
        #expect(error.localizedDescription.contains("/body"), "\(TestTransport.name): \(error.localizedDescription)")
    }

    /// A server that resets the connection while the body is still being
    /// sent (a kept-alive connection it had closed, as nginx does after
    /// `keepalive_timeout`): a lost connection, which ``RetryPolicy``
    /// retries for an idempotent method. (When libcurl notices it in a
    /// `send` rather than a `recv`, corelibs says `URLError.unknown`: see
    /// URLSessionOutcomeTests.)
    @Test(arguments: [HTTPMethod.put, .post])
    func aConnectionResetWhileTheBodyIsSentIsALostConnection(_ method: HTTPMethod) async throws {
        let server = try HeldUploadServer(resettingAfterHead: true)
        let session = TestTransport.makeSession()
        let result = await response(within: 120) {
            session.upload(Data(repeating: 0x41, count: 32 << 20), to: server.url, method: method)
                .responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(await server.finished.wait())
        let error = try #require(result?.error, "\(TestTransport.name): \(String(describing: result?.result))")
        #expect(error.urlError?.code == .networkConnectionLost, "\(TestTransport.name): \(error)")
        #expect(result?.response == nil)
    }

    /// Uploads a file in `directory` that ``FileSwappingAdapter`` removes
    /// (for a FIFO, or for nothing) before each attempt of the session;
    /// expects the attempt's `URLError` and nothing sent, and returns the
    /// error and the session.
    private func uploadFailing(
        from directory: TemporaryDirectory, to server: LoopbackServer, becauseTheFileIsSwappedForAFIFO makesFIFO: Bool
    ) async throws -> (URLError, Session) {
        let file = directory.url.appendingPathComponent("body")
        try Data("body".utf8).write(to: file)
        let session = TestTransport.makeSession(interceptor: Interceptor(adapters: [FileSwappingAdapter(file: file, makesFIFO: makesFIFO)]))
        let result = await response(within: 60) { session.upload(file, to: server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        let error = try #require(result?.error?.urlError, "\(TestTransport.name): \(String(describing: result?.result))")
        #expect(server.requestCount == 0)
        #expect(error.failingURL == server.url("/"), "\(TestTransport.name): the error names the request's URL")
        return (error, session)
    }

    /// A link to a file uploads the file (its length, not the link's).
    @Test func aLinkToAFileUploadsTheFile() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let file = try patternFile(length: 100_000)
        defer { try? FileManager.default.removeItem(at: file) }
        let link = file.deletingLastPathComponent().appendingPathComponent("link-\(UUID().uuidString)")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        defer { try? FileManager.default.removeItem(at: link) }
        let result = await response {
            TestTransport.makeSession().upload(link, to: server.url("/")).responseDecodable(of: BodyEcho.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value, "\(TestTransport.name): \(String(describing: result?.error))")
        #expect(echo.bodyLength == 100_000)
        #expect(echo.bodyDigest == BodyDigest.hexadecimal(try BodyDigest.ofFile(at: file)))
    }

    @Test func aMultipartFormArrivesPartByPart() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let file = try patternFile(length: 10_000)
        defer { try? FileManager.default.removeItem(at: file) }
        let photo = file.deletingLastPathComponent().appendingPathComponent("photo-\(UUID().uuidString).png")
        try FileManager.default.copyItem(at: file, to: photo)
        defer { try? FileManager.default.removeItem(at: photo) }
        let session = TestTransport.makeSession()
        let result = await response {
            session.upload(multipartFormData: { form in
                form.append(Data("Ada".utf8), withName: "name")
                form.append(photo, withName: "photo")
            }, to: server.url("/parts")).validate().responseDecodable(of: PartsEcho.self, queue: handlerQueue, completionHandler: $0)
        }
        let parts = try #require(result?.value?.parts, "\(String(describing: result?.error))")
        #expect(parts.map(\.name) == ["name", "photo"])
        #expect(parts[0].body == "Ada")
        #expect(parts[1].filename == photo.lastPathComponent)
        #expect(parts[1].contentType == "image/png")
        #expect(parts[1].length == 10_000)
        #expect(parts[1].digest == BodyDigest.hexadecimal(try BodyDigest.ofFile(at: file)))
    }

    @Test func anInputStreamIsSentWholeAndItsTemporaryCopyIsRemoved() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let length: Int64 = 3 << 20
        let file = try patternFile(length: length)
        defer { try? FileManager.default.removeItem(at: file) }
        // Removing the copy waits a while for the handler: a handler that
        // could run before the copy is removed would run then, and see it.
        let handled = DispatchSemaphore(value: 0)
        let fileManager = try ScratchFileManager(inside: FileManager.default.temporaryDirectory) {
            if handled.wait(timeout: .now() + 0.5) == .success { handled.signal() }
        }
        defer { fileManager.removeScratch() }
        let session = TestTransport.makeSession()
        let scratchWhenHandled = Recorder<Bool>()
        let result = await response { done in
            session.upload(InputStream(fileAtPath: file.path)!, to: server.url("/"), method: .put, fileManager: fileManager)
                .responseDecodable(of: BodyEcho.self, queue: handlerQueue) {
                    scratchWhenHandled.append(fileManager.scratchIsEmpty)
                    handled.signal()
                    done($0)
                }
        }
        let echo = try #require(result?.value, "\(String(describing: result?.error))")
        #expect(echo.method == "PUT")
        #expect(echo.bodyLength == length)
        #expect(echo.bodyDigest == BodyDigest.hexadecimal(try BodyDigest.ofFile(at: file)))
        #expect(scratchWhenHandled.events == [true], "the temporary copy is removed before the handler runs")
        #expect(fileManager.removals.count == 1, "by the upload's file manager")
    }

    /// A `URLRequest` whose body is an `httpBodyStream` sends it whole, of
    /// a length nobody declared (AsyncHTTPClientTransport read the stream
    /// whole into memory first, however long; now a piece at a time).
    @Test func aRequestsBodyStreamIsSentWhole() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let length: Int64 = 3 << 20
        let file = try patternFile(length: length)
        defer { try? FileManager.default.removeItem(at: file) }
        var urlRequest = URLRequest(url: server.url("/"))
        urlRequest.httpMethod = "PUT"
        urlRequest.httpBodyStream = InputStream(fileAtPath: file.path)
        let result = await response {
            TestTransport.makeSession().request(urlRequest).responseDecodable(of: BodyEcho.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value, "\(TestTransport.name): \(String(describing: result?.error))")
        #expect(echo.method == "PUT")
        #expect(echo.bodyLength == length)
        #expect(echo.bodyDigest == BodyDigest.hexadecimal(try BodyDigest.ofFile(at: file)))
    }

    /// A 307 keeps the method and the body, and a body stream was read by
    /// the first hop: the request fails with `requestBodyStreamExhausted`
    /// instead of sending the second hop an empty body (or none).
    @Test func aBodyStreamIsNotSentAgainEmpty() async throws {
        let second = Counter()
        let server = try LoopbackServer { request in
            if request.path == "/first" { return .response(status: 307, headers: [("Location", "/second")]) }
            second.increment()
            return .echo(request)
        }
        defer { server.shutdown() }
        var urlRequest = URLRequest(url: server.url("/first"))
        urlRequest.httpMethod = "POST"
        urlRequest.httpBodyStream = InputStream(data: Data(repeating: 7, count: 1_000))
        let result = await response {
            TestTransport.makeSession().request(urlRequest).responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.urlError?.code == .requestBodyStreamExhausted, "\(TestTransport.name): \(String(describing: result?.error))")
        #expect(second.count == 0, "the second hop is not sent")
    }

    @Test func aCancelledUploadRemovesItsCopyBeforeTheHandlerRuns() async throws {
        let server = try LoopbackServer { _ in .neverRespond }
        defer { server.shutdown() }
        let handled = DispatchSemaphore(value: 0)
        let fileManager = try ScratchFileManager(inside: FileManager.default.temporaryDirectory) {
            if handled.wait(timeout: .now() + 0.5) == .success { handled.signal() }
        }
        defer { fileManager.removeScratch() }
        let session = TestTransport.makeSession()
        let request = session.upload(InputStream(data: Data(repeating: 7, count: 4096)), to: server.url("/"), method: .put, fileManager: fileManager, timeout: .infinity)
        let done = Latch()
        let scratchWhenHandled = Recorder<Bool>()
        let outcome = Recorder<String>()
        request.responseData(queue: handlerQueue) {
            scratchWhenHandled.append(fileManager.scratchIsEmpty)
            outcome.append($0.error?.kind ?? "ok")
            handled.signal()
            done.arrive()
        }
        #expect(await eventually { server.requestCount == 1 }, "the request reached the server")
        #expect(!fileManager.scratchIsEmpty, "the copy is there while the request runs")
        request.cancel()
        #expect(await done.wait())
        #expect(outcome.events == ["cancelled"])
        #expect(scratchWhenHandled.events == [true], "the copy is removed before the handler runs")
        #expect(fileManager.removals.count == 1, "by the upload's file manager")
    }

    @Test func aStreamIsSentWholeAgainWhenTheRequestIsRetried() async throws {
        let hits = Counter()
        let server = try LoopbackServer(bodyBufferLimit: 1 << 20, oversizedBodies: .truncate) { request in
            hits.increment() == 1 ? .text("busy", status: 503) : .echo(request)
        }
        defer { server.shutdown() }
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let session = TestTransport.makeSession(retryPolicy: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.01))
        let request = session.upload(InputStream(data: payload), to: server.url("/"), method: .put)
        let result = await response { request.responseDecodable(of: BodyEcho.self, queue: handlerQueue, completionHandler: $0) }
        let echo = try #require(result?.value, "\(String(describing: result?.error))")
        #expect(echo.bodyLength == Int64(payload.count))
        #expect(echo.bodyDigest == BodyDigest.hexadecimal(BodyDigest.of(payload)))
        #expect(hits.count == 2)
        #expect(request.retryCount == 1)
    }

    @Test func aStreamThatCannotBeReadFailsEveryHandlerAndSendsNothing() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let kinds = Recorder<String>()
        let done = Latch(count: 2)
        session.upload(InputStream(url: URL(fileURLWithPath: "/no/such/file"))!, to: server.url("/"))
            .response(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
            .responseData(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await done.wait(seconds: 120))
        #expect(kinds.events == ["createUploadableFailed", "createUploadableFailed"])
        #expect(server.requestCount == 0)
    }

    /// A stream of the caller's own class whose `read` fails has no
    /// `streamError` to read: corelibs traps on asking, and did, in the
    /// process, whichever way the stream was handed over.
    @Test(arguments: ["upload", "form", "body stream"])
    func aStreamSubclassThatFailsToReadFailsTheRequest(_ route: String) async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let request: DataRequest
        switch route {
        case "upload":
            request = session.upload(FailingStream(), to: server.url("/"))
        case "form":
            request = session.upload(multipartFormData: { form in
                form.append(FailingStream(), withLength: 10, name: "f", fileName: "f", mimeType: "application/octet-stream")
            }, to: server.url("/"))
        default:
            var urlRequest = URLRequest(url: server.url("/"))
            urlRequest.httpMethod = "POST"
            urlRequest.httpBodyStream = FailingStream()
            request = session.request(urlRequest)
        }
        let result = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error != nil, "\(TestTransport.name), \(route): \(String(describing: result?.result))")
    }

    /// `uploadable` and the monitors' events say what each upload sends, as
    /// Alamofire's: data at once, the rest once prepared as the request starts.
    @Test func theUploadableIsReportedOnceReady() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let made = Recorder<UploadRequest.Uploadable>()
        let failed = Recorder<String>()
        let monitor = ClosureEventMonitor()
        monitor.requestDidCreateUploadable = { _, uploadable in made.append(uploadable) }
        monitor.requestDidFailToCreateUploadableWithError = { _, error in failed.append(error.kind) }
        let session = TestTransport.makeSession(eventMonitors: [monitor])

        let data = session.upload(Data("abc".utf8), to: server.url("/"))
        #expect(data.uploadable == .data(Data("abc".utf8)), "data is ready as given")
        _ = await response { data.responseData(queue: handlerQueue, completionHandler: $0) }

        let file = try patternFile(length: 1_000)
        defer { try? FileManager.default.removeItem(at: file) }
        let fileUpload = session.upload(file, to: server.url("/"))
        #expect(fileUpload.uploadable == nil, "prepared as the request starts")
        _ = await response { fileUpload.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(fileUpload.uploadable == .file(file, shouldRemove: false))

        let form = session.upload(multipartFormData: { $0.append(Data("x".utf8), withName: "a") }, to: server.url("/"), usingThreshold: 0)
        let formResult = await response { form.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(formResult?.error == nil)
        guard case .file(let encoded, shouldRemove: true)? = form.uploadable else {
            Issue.record("a form encoded to a temporary file: \(String(describing: form.uploadable))")
            return
        }
        #expect(await eventually { !FileManager.default.fileExists(atPath: encoded.path) }, "removed when the request ended")

        let unreadable = session.upload(InputStream(url: URL(fileURLWithPath: "/no/such/file"))!, to: server.url("/"))
        _ = await response { unreadable.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(unreadable.uploadable == nil)

        await drained(monitor.queue)
        #expect(made.events.count == 3)
        #expect(made.events.first == .data(Data("abc".utf8)))
        #expect(made.events.dropFirst().first == .file(file, shouldRemove: false))
        #expect(failed.events == ["createUploadableFailed"])
    }

    /// The form encodes to a file in the upload's file manager's temporary
    /// directory: one that does not exist fails the upload, unsent. Both
    /// forms of the factory: a form built by a closure, and one built before.
    @Test(arguments: [false, true])
    func aFormUploadUsesTheFileManagersTemporaryDirectory(prebuilt: Bool) async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await response { completion in
            let build = { (form: MultipartFormData) in form.append(Data("Ada".utf8), withName: "name") }
            let request: UploadRequest
            if prebuilt {
                let form = MultipartFormData()
                build(form)
                request = session.upload(multipartFormData: form, to: server.url("/parts"), usingThreshold: 0, fileManager: NowhereFileManager())
            } else {
                request = session.upload(multipartFormData: build, to: server.url("/parts"), usingThreshold: 0, fileManager: NowhereFileManager())
            }
            request.responseData(queue: handlerQueue, completionHandler: completion)
        }
        guard case .multipartEncodingFailed(.outputStreamCreationFailed(let file, _))? = result?.error else {
            Issue.record("expected the form's file to go nowhere, got \(String(describing: result?.error))")
            return
        }
        #expect(file.path.hasPrefix(NowhereFileManager.nowhere.path))
        #expect(server.requestCount == 0)
    }

    @Test func aMultipartFormWithAMissingFileFailsAndSendsNothing() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await response {
            session.upload(multipartFormData: { form in
                form.append(URL(fileURLWithPath: "/no/such/photo.png"), withName: "photo")
            }, to: server.url("/parts")).responseData(queue: handlerQueue, completionHandler: $0)
        }
        guard case .multipartEncodingFailed? = result?.error else {
            Issue.record("expected multipartEncodingFailed, got \(String(describing: result?.error))")
            return
        }
        #expect(server.requestCount == 0)
    }

    /// How a big upload's body is given.
    enum BigBody: Sendable, CaseIterable {
        case file, multipart, requestBodyStream
    }

    @Test(arguments: BigBody.allCases)
    func bigUploadsKeepMemoryFlat(_ body: BigBody) async throws {
        try await MemoryHeavyWork.exclusively { try await bigUpload(body) }
    }

    private func bigUpload(_ bigBody: BigBody) async throws {
        let multipart = bigBody == .multipart
        let length: Int64 = Sanitizers.any ? 64 << 20 : 500 << 20
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let file = try patternFile(length: length)
        defer { try? FileManager.default.removeItem(at: file) }
        // The encoded form goes to a directory of this test's own, so that what
        // is left there is this request's (other tests encode forms meanwhile).
        let fileManager = try ScratchFileManager(inside: FileManager.default.temporaryDirectory)
        defer { fileManager.removeScratch() }
        let session = TestTransport.makeSession()
        let digest = BodyDigest.hexadecimal(try BodyDigest.ofFile(at: file))
        let growth = try await transferGrowth(bound: TransferMemory.bound) {
            let request: DataRequest
            switch bigBody {
            case .file:
                request = session.upload(file, to: server.url("/"))
            case .multipart:
                request = session.upload(multipartFormData: { $0.append(file, withName: "file") }, to: server.url("/parts"), fileManager: fileManager)
            case .requestBodyStream:
                var urlRequest = URLRequest(url: server.url("/"))
                urlRequest.httpMethod = "POST"
                urlRequest.httpBodyStream = InputStream(fileAtPath: file.path)
                request = session.request(urlRequest)
            }
            let result = await response(within: 600) { request.responseData(queue: handlerQueue, completionHandler: $0) }
            let body = try #require(result?.value, "\(String(describing: result?.error))")
            if multipart {
                let parts = try JSONDecoder().decode(PartsEcho.self, from: body).parts
                #expect(parts.first?.length == length)
                #expect(parts.first?.digest == digest)
            } else {
                let echo = try JSONDecoder().decode(BodyEcho.self, from: body)
                #expect(echo.bodyLength == length)
                #expect(echo.bodyDigest == digest)
            }
        }
        print("memory growth uploading \(length >> 20) MiB as \(bigBody) (\(Sanitizers.description)): \(growth)")
        if !Sanitizers.any { #expect(growth.judged <= TransferMemory.bound, "memory grew by \(growth)") }
        #expect(fileManager.scratchIsEmpty, "the encoded form's temporary file is removed")
    }
}

/// A file manager whose temporary directory is a fresh directory of the
/// test's, to see what the library leaves there.
// @unchecked Sendable as FileManager itself: its stored properties are constants.
final class ScratchFileManager: FileManager, @unchecked Sendable {
    let scratch: URL
    /// Runs before every `removeItem(at:)` of the library's.
    let beforeRemoving: @Sendable () -> Void
    /// How many times the library removed an item through this manager.
    let removals = Counter()

    init(inside parent: URL, beforeRemoving: @escaping @Sendable () -> Void = {}) throws {
        scratch = parent.appendingPathComponent("DeferredQueueTests-scratch-\(UUID().uuidString)")
        self.beforeRemoving = beforeRemoving
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        super.init()
    }

    override var temporaryDirectory: URL { scratch }

    override func removeItem(at url: URL) throws {
        beforeRemoving()
        removals.increment()
        try super.removeItem(at: url)
    }

    var scratchIsEmpty: Bool {
        (try? FileManager.default.contentsOfDirectory(atPath: scratch.path))?.isEmpty == true
    }

    func removeScratch() {
        try? FileManager.default.removeItem(at: scratch)
    }
}

/// A file manager whose temporary directory does not exist.
// @unchecked Sendable as FileManager itself: it adds no state.
private final class NowhereFileManager: FileManager, @unchecked Sendable {
    static let nowhere = URL(fileURLWithPath: "/nonexistent-DeferredQueueTests")
    override var temporaryDirectory: URL { Self.nowhere }
}

/// A stream of the caller's own class whose every `read` fails.
private final class FailingStream: InputStream {
    init() { super.init(data: Data()) }
    override var hasBytesAvailable: Bool { true }
    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int { -1 }
}
