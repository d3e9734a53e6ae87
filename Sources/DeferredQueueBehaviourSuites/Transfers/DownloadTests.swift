import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// Registers one download handler and waits (with a guard deadline) for its response.
func downloadResponse<Value: Sendable>(
    within seconds: Double = 120,
    _ register: (@escaping @Sendable (DownloadResponse<Value, HTTPError>) -> Void) -> Void
) async -> DownloadResponse<Value, HTTPError>? {
    let latch = Latch()
    let box = Recorder<DownloadResponse<Value, HTTPError>>()
    register { response in
        box.append(response)
        latch.arrive()
    }
    guard await latch.wait(seconds: seconds) else { return nil }
    return box.events.first
}

/// A fresh directory under the temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueueTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite("Downloads: to disk as the body arrives, then to the destination")
struct DownloadTests {
    @Test func aDownloadLandsInATemporaryFileByDefault() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let result = await downloadResponse { session.download(fixture.url("/json")).responseURL(queue: handlerQueue, completionHandler: $0) }
        let url = try #require(result?.value)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try Data(contentsOf: url) == Data(#"{"title":"hello","count":3,"tags":["a","b"]}"#.utf8))
        #expect(result?.fileURL == url)
        #expect(result?.response?.statusCode == 200)
        #expect(result?.resumeData == nil)
    }

    @Test func contentTypeValidationJudgesTheDownloadedFile() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let html = await downloadResponse {
            session.download(fixture.url("/html")).validate(contentType: ["application/json"])
                .responseURL(queue: handlerQueue, completionHandler: $0)
        }
        #expect(html?.error?.kind == "contentType", "\(String(describing: html?.error))")
        let accepted = await downloadResponse {
            session.download(fixture.url("/html"), headers: ["Accept": "application/json"]).validate()
                .responseURL(queue: handlerQueue, completionHandler: $0)
        }
        #expect(accepted?.error?.kind == "contentType", "validate() checks Accept on a download too")
        let json = await downloadResponse {
            session.download(fixture.url("/json")).validate(contentType: ["application/json"])
                .responseURL(queue: handlerQueue, completionHandler: $0)
        }
        #expect(json?.error == nil)
        // An empty file passes, as an empty body does.
        let empty = await downloadResponse {
            session.download(fixture.url("/empty")).validate(contentType: ["application/json"])
                .responseURL(queue: handlerQueue, completionHandler: $0)
        }
        #expect(empty?.error == nil)
        for url in [html?.fileURL, accepted?.fileURL, json?.fileURL, empty?.fileURL].compactMap({ $0 }) {
            try? FileManager.default.removeItem(at: url)
        }
    }

    @Test func asyncBridgesReadTheDownloadedFile() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination: DownloadRequest.Destination = { _, _ in (directory.appendingPathComponent(UUID().uuidString), []) }

        let file = try await session.download(fixture.url("/json"), to: destination).serializingDownloadedFileURL().value
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
        #expect(try Data(contentsOf: file) == Data(#"{"title":"hello","count":3,"tags":["a","b"]}"#.utf8))
        #expect(try await session.download(fixture.url("/json"), to: destination).serializingJSON().value["title"] == "hello")
        #expect(try await session.download(fixture.url("/text"), to: destination).serializingString().value == "héllo wörld")
        #expect(try await session.download(fixture.url("/json"), to: destination).serializingData().value.count == 44)
        let entry = try await session.download(fixture.url("/json"), to: destination).serializingDecodable(DownloadedEntry.self).value
        #expect(entry == DownloadedEntry(title: "hello", count: 3))
        let text = try await session.download(fixture.url("/text"), to: destination)
            .serializingDownload(using: StringResponseSerializer()).value
        #expect(text == "héllo wörld")

        // Failures: rejected with the HTTPError, or inside the always-fulfilled response.
        do {
            _ = try await session.download(fixture.url("/status/500"), to: destination).validate().serializingDownloadedFileURL().value
            Issue.record("a 500 must fail validation")
        } catch let error as HTTPError {
            #expect(error.kind == "status(500)")
        }
        let whole = try await session.download(fixture.url("/status/404"), to: destination).validate()
            .serializingResponse(using: DataResponseSerializer()).value
        #expect(whole.response?.statusCode == 404)
        #expect(whole.error?.kind == "status(404)")
    }

    /// A finished download always has a file, an empty body's too (a 204,
    /// a `HEAD`): so a serializer given no file reports that (`inputFileNil`,
    /// as Alamofire's) rather than an empty body, and one whose file is gone
    /// says which (`inputFileReadFailed(at:)`).
    @Test func anEmptyDownloadStillHasAFile() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        for (path, method) in [("/no-content", HTTPMethod.get), ("/json", .head), ("/empty", .get)] {
            let response = try await session.download(fixture.url(path), method: method)
                .serializingResponse(using: DataResponseSerializer(emptyResponseCodes: [200, 204])).value
            let file = try #require(response.fileURL, "\(TestTransport.name): \(method) \(path)")
            defer { try? FileManager.default.removeItem(at: file) }
            // Its size, not its bytes: Foundation on Linux leaks a buffer reading an empty file
            // (the serializer, which must read it, does not: see Data(readingFile:)).
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int == 0)
            #expect(response.value == Data(), "\(String(describing: response.error))")
        }
        let noContent = HTTPURLResponse(url: URL(fileURLWithPath: "/"), statusCode: 204, httpVersion: nil, headerFields: nil)
        let noFile = #expect(throws: HTTPError.self) {
            try DataResponseSerializer().serializeDownload(request: nil, response: noContent, fileURL: nil, error: nil)
        }
        let noURL = #expect(throws: HTTPError.self) {
            try URLResponseSerializer().serializeDownload(request: nil, response: noContent, fileURL: nil, error: nil)
        }
        for error in [noFile, noURL] {
            guard case .responseSerializationFailed(.inputFileNil)? = error else {
                Issue.record("not inputFileNil: \(String(describing: error))")
                continue
            }
        }
        let gone = FileManager.default.temporaryDirectory.appendingPathComponent("gone-\(UUID().uuidString)")
        let unreadable = #expect(throws: HTTPError.self) {
            try DataResponseSerializer().serializeDownload(request: nil, response: noContent, fileURL: gone, error: nil)
        }
        guard case .responseSerializationFailed(.inputFileReadFailed(let url))? = unreadable else {
            Issue.record("not inputFileReadFailed: \(String(describing: unreadable))")
            return
        }
        #expect(url == gone)
    }

    @Test func cancellingTheDeferredCancelsTheDownload() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let download = session.download(fixture.url("/slow"))
        let file = download.serializingDownloadedFileURL()
        file.cancel()
        #expect(await eventually { download.state == .cancelled })
        #expect(await eventually { session.runningRequestCount == 0 })
    }

    @Test func serializersReadTheFileInChainOrder() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let order = Recorder<String>()
        let done = Latch(count: 3)
        let download = session.download(fixture.url("/json"))
        defer { removeDownloadedFiles(of: download) }
        download
            .responseData(queue: handlerQueue) { order.append("data:\($0.value?.count ?? -1)"); done.arrive() }
            .responseJSON(queue: handlerQueue) { order.append("json:\($0.value?["title"].string ?? "-")"); done.arrive() }
            .responseString(queue: handlerQueue) { order.append("string:\($0.value?.hasPrefix("{") == true)"); done.arrive() }
        #expect(await done.wait(seconds: 120))
        #expect(order.events == ["data:44", "json:hello", "string:true"])
    }

    @Test func theDestinationOptionsCreateDirectoriesAndReplaceFiles() async throws {
        let fixture = try Fixture()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("nested/deeper/entry.json")
        let session = TestTransport.makeSession()
        let destination: DownloadRequest.Destination = { _, _ in (target, [.createIntermediateDirectories, .removePreviousFile]) }
        for _ in 0..<2 {
            let result = await downloadResponse { session.download(fixture.url("/json"), to: destination).responseURL(queue: handlerQueue, completionHandler: $0) }
            #expect(result?.value == target, "\(String(describing: result?.error))")
        }
        #expect(FileManager.default.fileExists(atPath: target.path))
    }

    @Test func aFailedMoveIsDownloadedFileMoveFailed() async throws {
        let fixture = try Fixture()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("missing/entry.json")
        let session = TestTransport.makeSession()
        let result = await downloadResponse {
            session.download(fixture.url("/json"), to: { _, _ in (target, []) }).responseURL(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.kind == "moveFailed")
        #expect(result?.fileURL == nil)
    }

    @Test func suggestedDestinationsUseTheResponsesFileName() throws {
        let url = try #require(URL(string: "http://127.0.0.1/files/report.pdf"))
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
        let destination = DownloadRequest.suggestedDownloadDestination(for: .cachesDirectory)
        let (target, options) = destination(URL(fileURLWithPath: "/tmp/x"), response)
        #expect(target.lastPathComponent == "report.pdf")
        #expect(options == .createIntermediateDirectories, "never .removePreviousFile by default: the server chooses the name")
    }

    @Test func progressIsMonotonicAndEndsAtTheTotal() async throws {
        let server = try LoopbackServer { _ in .generated(length: 4 << 20, chunkSize: 64 << 10) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let progress = Recorder<TransferProgress>()
        let result = await downloadResponse {
            session.download(server.url("/")).downloadProgress(queue: handlerQueue) { progress.append($0) }
                .responseURL(queue: handlerQueue, completionHandler: $0)
        }
        let url = try #require(result?.value)
        defer { try? FileManager.default.removeItem(at: url) }
        let completed = progress.events.map(\.completed)
        #expect(completed == completed.sorted())
        #expect(completed.last == 4 << 20)
        #expect(progress.events.last?.expected == 4 << 20)
        #expect(try BodyDigest.ofFile(at: url) == BodyDigest.of(GeneratedContent.pattern.bytes(in: 0..<(4 << 20))))
    }

    @Test func cancellingMidBodyRemovesThePartialFile() async throws {
        let server = try LoopbackServer { _ in .generated(length: 64 << 20, chunkSize: 16 << 10, interval: 0.05) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let started = Latch()
        let req = session.download(server.url("/"))
        req.downloadProgress(queue: handlerQueue) { _ in started.arrive() }
        let result = Recorder<String>()
        let done = Latch()
        req.responseURL(queue: handlerQueue) { result.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await started.wait(seconds: 120))
        // The session writes the file as chunks arrive (on a transport that
        // writes it itself, the transport owns the partial file).
        let partial = req.mutableState.testLock(owner: req) { $0.download?.url }
        if !session.transport.supportsDownloadsToFile {
            let path = try #require(partial?.path)
            #expect(FileManager.default.fileExists(atPath: path))
        }
        req.cancel()
        #expect(await done.wait(seconds: 120))
        #expect(result.events == ["cancelled"])
        if let path = partial?.path {
            // A chunk being written as cancel() came: its writer removes the
            // file once the write returns, which may be after the handler ran.
            #expect(await eventually { !FileManager.default.fileExists(atPath: path) }, "the partial file is removed")
        }
    }

    @Test func aBodyCutShortFailsAndLeavesNoFile() async throws {
        let server = try LoopbackServer { _ in .closeMidBody(body: Data(repeating: 1, count: 100_000), sentBytes: 50_000) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await downloadResponse { session.download(server.url("/")).responseURL(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.urlError?.code == .networkConnectionLost)
        #expect(result?.fileURL == nil)
    }

    @Test func aGibibyteDownloadKeepsMemoryFlat() async throws {
        // Paced at about 40 MiB/s, a fast real network: beside every other
        // suite on two cores, an unpaced one starves them (URLSession's work
        // queue is shared by every session in the process). Unpaced, run
        // alone: the test below.
        try await MemoryHeavyWork.exclusively {
            try await gibibyteDownload(interval: 0.006, reportingProgress: false, bound: TransferMemory.bound)
        }
    }

    /// Issue 24's measurement: a 1 GiB download as fast as loopback, with
    /// and without a progress handler (one queued event per chunk), in a
    /// process of its own: `.ci/run` runs it with
    /// `DEFERREDQUEUE_RUN_ALONE=1 swift test --skip-build --filter unpaced`.
    @Test(
        .enabled(if: ProcessInfo.processInfo.environment["DEFERREDQUEUE_RUN_ALONE"] == "1"),
        arguments: [false, true]
    )
    func anUnpacedGibibyteDownloadRunAloneKeepsMemoryFlat(reportingProgress: Bool) async throws {
        try await MemoryHeavyWork.exclusively {
            try await gibibyteDownload(interval: 0, reportingProgress: reportingProgress, bound: TransferMemory.unpacedBound)
        }
    }

    private func gibibyteDownload(interval: Double, reportingProgress: Bool, bound: Double) async throws {
        let length: Int64 = Sanitizers.any ? 128 << 20 : 1 << 30
        let server = try LoopbackServer { _ in .generated(length: length, chunkSize: 256 << 10, interval: interval) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let growth = try await transferGrowth(bound: bound) {
            let reported = Counter()
            let result = await downloadResponse(within: 600) {
                let request = session.download(server.url("/"))
                if reportingProgress { request.downloadProgress(queue: handlerQueue) { _ in reported.increment() } }
                request.responseURL(queue: handlerQueue, completionHandler: $0)
            }
            let url = try #require(result?.value, "\(String(describing: result?.error))")
            defer { try? FileManager.default.removeItem(at: url) }
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64
            #expect(size == length)
            #expect((reported.count > 0) == reportingProgress)
        }
        print("memory growth downloading \(length >> 20) MiB on \(TestTransport.name), \(interval == 0 ? "unpaced" : "paced"), progress \(reportingProgress) (\(Sanitizers.description)): \(growth)")
        if !Sanitizers.any { #expect(growth.judged <= bound, "memory grew by \(growth)") }
    }
}

/// The `/json` route's fields, decoded from a downloaded file.
struct DownloadedEntry: Decodable, Equatable, Sendable {
    let title: String
    let count: Int
}
