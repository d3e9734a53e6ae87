import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// A body a hostile server sends to exhaust memory or disk.
enum HostileBody: String, CaseIterable, CustomStringConvertible, Sendable {
    /// A chunked body that never ends.
    case endless
    /// 1 GiB of zeros, gzip-compressed about a hundredfold.
    case gzipBomb
    /// The same bomb under two more gzip layers (`Content-Encoding: gzip, gzip, gzip`).
    case nestedGzipBomb

    var description: String { rawValue }

    var reply: Reply {
        switch self {
        case .endless: .generated(length: 1 << 50, chunked: true, chunkSize: 256 << 10)
        case .gzipBomb: .gzip(decodedLength: 1 << 30, content: .repeating(0))
        case .nestedGzipBomb: .nestedGzip(layers: 3, decodedLength: 1 << 30, content: .repeating(0))
        }
    }
}

// Every body a session receives — in memory, into a download's file, or
// through a stream — stops at its limit L promptly, with a bounded cost:
// the process grows by at most L + 32 MiB, whatever the server sends.
// (Not judged under a sanitizer, whose shadow memory grows with every
// allocation, as in the transfer tests.)
// Stop times are printed, never asserted (a deadline only guards against hangs).
@Suite("Body limits: endless bodies and compression bombs stop at the limit")
struct BodyLimitTests {
    /// corelibs holds ~340 bytes for every chunk while a body of tiny
    /// chunks flows (a timeout timer each, freed once its work queue is
    /// idle), past any body limit: URLSession stops such a body and says
    /// which transport takes it; AsyncHTTPClient takes it.
    @Test func aBodyOfTinyChunksFailsOnURLSessionAndArrivesOnAsyncHTTPClient() async throws {
        let count = 120_000
        let server = try LoopbackServer { _ in .generated(length: Int64(count), chunked: true, chunkSize: 1) }
        defer { server.shutdown() }
        let result = await response(within: 300) {
            TestTransport.makeSession().request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0)
        }
        if TestTransport.name == "URLSession" {
            #expect(result?.error?.urlError?.code == .dataLengthExceedsMaximum, "\(String(describing: result?.error))")
            #expect(result?.error?.description.contains("AsyncHTTPClientTransport") == true, "\(String(describing: result?.error))")
        } else {
            #expect(result?.value?.count == count, "\(TestTransport.name): \(String(describing: result?.error))")
        }
    }

    static let limit = 8 << 20
    /// The growth allowed while one hostile body is refused, in MiB: L + 32 MiB.
    static let bound = Double(limit >> 20) + 32

    @Test(arguments: HostileBody.allCases)
    func aHostileBodyInMemoryStopsAtTheLimit(_ body: HostileBody) async throws {
        try await MemoryHeavyWork.exclusively {
            let server = try LoopbackServer { _ in body.reply }
            defer { server.shutdown() }
            let session = TestTransport.makeSession(maximumResponseBodySize: Self.limit)
            var error: HTTPError?
            var seconds = 0.0
            let growth = try await transferGrowth(bound: Sanitizers.any ? .infinity : Self.bound) {
                let start = Date()
                let result = await response { session.request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
                seconds = Date().timeIntervalSince(start)
                error = try #require(result, "no response within the deadline").error
            }
            report("in memory", body, growth: growth, seconds: seconds)
            #expect(error?.kind == "tooLarge")
            if !Sanitizers.any { #expect(growth.judged <= Self.bound, "memory grew by \(growth)") }
        }
    }

    @Test(arguments: HostileBody.allCases)
    func aHostileDownloadStopsAtTheLimitAndLeavesNoFile(_ body: HostileBody) async throws {
        try await MemoryHeavyWork.exclusively {
            let server = try LoopbackServer { _ in body.reply }
            defer { server.shutdown() }
            let session = TestTransport.makeSession(maximumStreamedBodySize: Self.limit)
            var error: HTTPError?
            var seconds = 0.0
            let partial = Recorder<URL>()
            let growth = try await transferGrowth(bound: Sanitizers.any ? .infinity : Self.bound) {
                let start = Date()
                let result = await downloadResponse {
                    let request = session.download(server.url("/"))
                    request.downloadProgress(queue: handlerQueue) { _ in
                        if partial.events.isEmpty, let url = request.mutableState.testLock(owner: request, { $0.download?.url }) {
                            partial.append(url)
                        }
                    }
                    request.responseURL(queue: handlerQueue, completionHandler: $0)
                }
                seconds = Date().timeIntervalSince(start)
                let finished = try #require(result, "no response within the deadline")
                error = finished.error
                #expect(finished.fileURL == nil)
            }
            report("download", body, growth: growth, seconds: seconds)
            #expect(error?.kind == "tooLarge")
            if !Sanitizers.any { #expect(growth.judged <= Self.bound, "memory grew by \(growth)") }
            if !session.transport.supportsDownloadsToFile {
                #expect(!partial.events.isEmpty, "the session wrote a partial file")
            }
            for url in partial.events {
                #expect(!FileManager.default.fileExists(atPath: url.path), "the partial file is removed")
            }
        }
    }

    @Test(arguments: HostileBody.allCases)
    func aHostileStreamStopsAtTheLimit(_ body: HostileBody) async throws {
        try await MemoryHeavyWork.exclusively {
            let server = try LoopbackServer { _ in body.reply }
            defer { server.shutdown() }
            let session = TestTransport.makeSession(maximumStreamedBodySize: Self.limit)
            var error: (any Error)?
            var total = 0
            var seconds = 0.0
            let growth = await transferGrowth(bound: Sanitizers.any ? .infinity : Self.bound) {
                let start = Date()
                total = 0
                // The reader on a queue of its own (see offThePool).
                let outcome = try? await offThePool { () -> Result<Int, any Error> in
                    var read = 0
                    do {
                        for try await chunk in session.streamRequest(server.url("/")).streamingData() { read += chunk.count }
                    } catch {
                        return .failure(error)
                    }
                    return .success(read)
                }
                switch outcome {
                case .success(let read)?: total = read
                case .failure(let failure)?: error = failure
                case nil: break
                }
                seconds = Date().timeIntervalSince(start)
            }
            report("stream", body, growth: growth, seconds: seconds)
            #expect((error as? HTTPError)?.kind == "tooLarge")
            #expect(total <= Self.limit, "the stream handed over \(total) bytes")
            if !Sanitizers.any { #expect(growth.judged <= Self.bound, "memory grew by \(growth)") }
        }
    }

    @Test func anHonestBodyJustUnderTheLimitArrivesWhole() async throws {
        let length = Self.limit - 1
        let server = try LoopbackServer { request in
            request.path == "/gzip" ? .gzip(decodedLength: Int64(length)) : .generated(length: Int64(length), chunked: true)
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession(maximumResponseBodySize: Self.limit, maximumStreamedBodySize: Self.limit)
        for path in ["/", "/gzip"] {
            let data = await response { session.request(server.url(path)).responseData(queue: handlerQueue, completionHandler: $0) }
            let body = try #require(data?.value, "\(path): \(String(describing: data?.error))")
            #expect(body.count == length)
            #expect(GeneratedContent.pattern.firstMismatch(in: body, startingAt: 0) == nil, "\(path) decoded correctly")

            let download = await downloadResponse { session.download(server.url(path)).responseURL(queue: handlerQueue, completionHandler: $0) }
            let url = try #require(download?.value, "\(path): \(String(describing: download?.error))")
            defer { try? FileManager.default.removeItem(at: url) }
            #expect(try BodyDigest.ofFile(at: url) == BodyDigest.of(GeneratedContent.pattern.bytes(in: 0..<Int64(length))))

            var streamed = Data()
            for try await chunk in session.streamRequest(server.url(path)).streamingData() { streamed.append(chunk) }
            #expect(streamed.count == length)
            #expect(GeneratedContent.pattern.firstMismatch(in: streamed, startingAt: 0) == nil, "\(path) streamed correctly")
        }
    }

    /// A download or a stream past its limit names the setting that bounds
    /// it, not only the one for a body held in memory.
    @Test func aDownloadOrAStreamPastItsLimitNamesMaximumStreamedBodySize() async throws {
        let server = try LoopbackServer { _ in .generated(length: 1 << 20, chunked: true) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession(maximumStreamedBodySize: 64 << 10)
        let download = await downloadResponse { session.download(server.url("/")).responseURL(queue: handlerQueue, completionHandler: $0) }
        var streamed: HTTPError?
        do {
            for try await _ in session.streamRequest(server.url("/")).streamingData() {}
        } catch let error as HTTPError {
            streamed = error
        }
        for (kind, error) in [("download", download?.error), ("stream", streamed)] {
            #expect(error?.kind == "tooLarge", "\(kind): \(String(describing: error))")
            #expect(error?.description.contains("Session(maximumStreamedBodySize:) for a download or a stream") == true, "\(kind)")
        }
    }

    @Test func aNestedGzipBodyIsDecodedThroughEveryLayer() async throws {
        let length: Int64 = 1 << 20
        let server = try LoopbackServer { _ in .nestedGzip(layers: 3, decodedLength: length) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let data = await response { session.request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        let body = try #require(data?.value, "\(String(describing: data?.error))")
        #expect(body.count == Int(length))
        #expect(GeneratedContent.pattern.firstMismatch(in: body, startingAt: 0) == nil)
    }

    private func report(_ kind: String, _ body: HostileBody, growth: MemoryGrowth, seconds: Double) {
        let figures = "growth \(growth), stopped after \(String(format: "%.2f", seconds)) s"
        print("body limit (\(TestTransport.name), L = \(Self.limit >> 20) MiB), \(kind), \(body): \(figures)")
    }
}
