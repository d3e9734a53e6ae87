import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Synchronization
import Testing

/// ``Reply/generated(status:headers:length:content:chunked:chunkSize:interval:)``:
/// bodies made while the client reads them.
@Suite("LoopbackServer generated bodies")
struct GeneratedReplyTests {
    @Test func thePatternIsTheOffsetModulo251() {
        let bytes = GeneratedContent.pattern.bytes(in: 500..<70_000)
        #expect(bytes.count == 69_500)
        #expect(bytes.enumerated().allSatisfy { $0.element == UInt8((500 + $0.offset) % 251) })
        #expect(GeneratedContent.pattern.byte(at: 251 * 1000 + 7) == 7)
        #expect(GeneratedContent.repeating(9).bytes(in: 0..<3) == Data([9, 9, 9]))
        #expect(GeneratedContent.pattern.bytes(in: 5..<5).isEmpty)
    }

    @Test func mismatchesAreFoundAtTheirOffset() {
        var bytes = GeneratedContent.pattern.bytes(in: 1000..<200_000)
        #expect(GeneratedContent.pattern.firstMismatch(in: bytes, startingAt: 1000) == nil)
        #expect(GeneratedContent.pattern.firstMismatch(in: bytes, startingAt: 1001) == 1001)
        bytes[bytes.startIndex + 150_000] ^= 1
        #expect(GeneratedContent.pattern.firstMismatch(in: bytes, startingAt: 1000) == 151_000)
        #expect(GeneratedContent.repeating(0).firstMismatch(in: Data([0, 0, 1]), startingAt: 10) == 12)
    }

    @Test(arguments: [false, true])
    func urlSessionReceivesTheGeneratedBody(chunked: Bool) async throws {
        let server = try LoopbackServer { _ in .generated(length: 3_000_001, chunked: chunked, chunkSize: 100_000) }
        defer { server.shutdown() }
        let (data, response) = try await makeSession().data(from: server.url("/"))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Length") == (chunked ? nil : "3000001"))
        #expect(data.count == 3_000_001)
        #expect(GeneratedContent.pattern.firstMismatch(in: data, startingAt: 0) == nil)
    }

    @Test func slowGeneratedBodiesArriveWholeAndKeepTheConnection() throws {
        let server = try LoopbackServer { request in
            request.path == "/slow" ? .generated(length: 1000, content: .repeating(7), chunkSize: 300, interval: 0.02)
                : .text("next")
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        let slow = try client.readResponse()
        #expect(slow.body == Data(repeating: 7, count: 1000))
        #expect(try client.readResponse().body == Data("next".utf8))
        #expect(server.connectionCount == 1)
    }

    @Test(arguments: [GeneratedContent.pattern, .repeating(0)])
    func slowChunkedBodiesEndWithTheirLastChunk(content: GeneratedContent) async throws {
        let server = try LoopbackServer { _ in
            .generated(length: 1000, content: content, chunked: true, chunkSize: 300, interval: 0.02)
        }
        defer { server.shutdown() }
        let (data, _) = try await makeSession().data(from: server.url("/"))
        #expect(data == content.bytes(in: 0..<1000))
    }

    @Test func headRequestsForGeneratedBodiesGetHeadersOnly() throws {
        let server = try LoopbackServer { _ in .generated(length: 1 << 40) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let head = try client.readHead()
        #expect(head.headers["content-length"] == "1099511627776")
        #expect(head.headers["content-type"] == "application/octet-stream")
        // The next response follows at once: no body bytes in between.
        let next = try client.readHead()
        #expect(next.status == 200)
    }

    /// 256 MiB through a socket reader that verifies and forgets; the server
    /// produces as the client reads, so resident memory barely moves.
    @Test func aQuarterGibibyteStreamsWithFlatServerMemory() async throws {
        // The server queues at most about 1 MiB; buffering the body would cost 256 MiB.
        let bound = 128.0
        let growth = try await MemoryHeavy.exclusively {
            try await smallestGrowth(under: bound) { try quarterGibibyteDownload() }
        }
        if let growth, !Sanitizers.any { #expect(growth < bound, "resident memory grew by \(growth) MiB") }
    }

    /// Streams 256 MiB, checks every byte, and returns the resident-memory
    /// growth meanwhile (`nil`: not measurable here).
    private func quarterGibibyteDownload() throws -> Double? {
        let length: Int64 = 256 << 20
        let server = try LoopbackServer { _ in .generated(length: length) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        ResidentMemory.trim()
        let before = ResidentMemory.mebibytes()
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        var offset: Int64 = 0
        var mismatch: Int64?
        var peak = before ?? 0
        let received = try client.stream(upTo: length) { piece in
            if mismatch == nil { mismatch = GeneratedContent.pattern.firstMismatch(in: piece, startingAt: offset) }
            offset += Int64(piece.count)
            if offset % (16 << 20) < Int64(piece.count) { peak = max(peak, ResidentMemory.mebibytes() ?? 0) }
        }
        // Checked here, off the test's task: a failure throws, with what was wrong.
        guard head.headers["content-length"] == "\(length)", received == length, mismatch == nil else {
            throw StreamMismatch(received: received, firstMismatch: mismatch)
        }
        print("resident memory while streaming 256 MiB: \(before ?? 0) MiB before, peak \(peak) MiB")
        return before.map { peak - $0 }
    }

    private struct StreamMismatch: Error {
        let received: Int64
        let firstMismatch: Int64?
    }

    private func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        return URLSession(configuration: configuration)
    }
}
