import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

// With `Content-Encoding: gzip`, URLSession's `expectedContentLength` is the
// compressed size while bodies arrive decoded. v1 compared the two, decided
// the transfer was about to finish, and did not cancel it.
@Suite("Compressed transfers: progress and cancellation")
struct CompressedTransferTests {
    /// 512 MiB of zeros, gzip-compressed to a few MiB, sent slowly (minutes).
    private static func slowGzipServer() throws -> LoopbackServer {
        try LoopbackServer { _ in
            .gzip(decodedLength: 512 << 20, content: .repeating(0), chunkSize: 2_048, interval: 0.05)
        }
    }

    /// A response without a body — to a HEAD, a 204, a 304, one of length
    /// 0 — is empty whatever encoding its head names (nginx answers a HEAD
    /// with the `Content-Encoding` its GET would have): AsyncHTTPClient
    /// failed these as a compressed body cut short, URLSession took them.
    @Test func aResponseWithoutABodyIsEmptyWhateverItsEncoding() async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/204": .response(status: 204, headers: [("Content-Encoding", "gzip")])
            case "/304": .response(status: 304, headers: [("Content-Encoding", "gzip"), ("ETag", "\"x\"")])
            case "/empty": .response(status: 200, headers: [("Content-Encoding", "gzip")])
            default: .gzip(decodedLength: 10_000)
            }
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let cases: [(path: String, method: HTTPMethod, status: Int)] = [("/", .head, 200), ("/204", .get, 204), ("/304", .get, 304), ("/empty", .get, 200)]
        for (path, method, status) in cases {
            let result = await response {
                session.request(server.url(path), method: method).response(queue: handlerQueue, completionHandler: $0)
            }
            #expect(result?.error == nil, "\(TestTransport.name), \(method) \(path): \(String(describing: result?.error))")
            #expect(result?.response?.statusCode == status, "\(TestTransport.name), \(method) \(path)")
            #expect(result?.data?.isEmpty ?? true, "\(TestTransport.name), \(method) \(path)")
        }
        let body = await response { session.request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(body?.value?.count == 10_000, "the GET's body is decoded")
    }

    @Test func cancelStopsACompressedTransferPastItsCompressedLength() async throws {
        // The decoded body is collected until the cancel, which a loaded
        // machine can delay by seconds of fast-growing zeros: this takes the
        // gate of the tests that measure resident memory.
        try await MemoryHeavyWork.exclusively { try await cancelPastCompressedLength() }
    }

    private func cancelPastCompressedLength() async throws {
        let server = try Self.slowGzipServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let progress = Recorder<TransferProgress>()
        let passedCompressedLength = Latch()
        // The limit is above the whole decoded body (which takes two minutes
        // at this pace): on a loaded machine the progress handler may run
        // late, and the transfer must still end by the cancel, not the limit.
        let req = session.request(server.url("/")).maximumResponseBodySize(1 << 30)
        let compressedLength = Counter()
        req.downloadProgress(queue: handlerQueue) { update in
            progress.append(update)
            if compressedLength.count == 0, let length = req.response?.expectedContentLength, length > 0 {
                compressedLength.add(Int(length))
            }
            if compressedLength.count > 0, update.completed > Int64(compressedLength.count) {
                passedCompressedLength.arrive()
            }
        }
        let result = Recorder<String>()
        let done = Latch()
        req.response(queue: handlerQueue) { result.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await passedCompressedLength.wait(seconds: 120), "more decoded bytes arrived than the compressed Content-Length")
        req.cancel()
        #expect(await done.wait(seconds: 120))
        #expect(result.events == ["cancelled"])
        #expect(await eventually(within: 120) { server.openConnectionCount == 0 }, "the transfer was stopped: the connection closed")
        #expect(progress.events.allSatisfy { $0.expected == nil }, "an encoded body's decoded size is unknown")
    }
}
