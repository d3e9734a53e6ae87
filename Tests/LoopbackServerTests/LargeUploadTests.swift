import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing

/// Request bodies larger than the server keeps: ``LoopbackServer/OversizedBodies``.
@Suite("LoopbackServer large uploads")
struct LargeUploadTests {
    /// What ``Reply/echo(_:)`` says about the body.
    private struct BodyEcho: Decodable {
        var body: String
        var bodyEncoding: String
        var bodyLength: Int64
        var bodyDigest: String
        var bodyIsTruncated: Bool
    }

    @Test(arguments: [false, true])
    func threeHundredMebibytesAreCountedAndDigested(chunked: Bool) async throws {
        // Buffering the body would cost 300 MiB.
        let bound = 128.0
        let growth = try await MemoryHeavy.exclusively {
            try await smallestGrowth(under: bound) { try upload300MiB(chunked: chunked) }
        }
        if let growth, !Sanitizers.any { #expect(growth < bound, "resident memory grew by \(growth) MiB") }
    }

    /// Uploads 300 MiB, checks what the server says of it, and returns the
    /// resident-memory growth meanwhile (`nil`: not measurable here).
    private func upload300MiB(chunked: Bool) throws -> Double? {
        let length: Int64 = 300 << 20
        let server = try LoopbackServer(bodyBufferLimit: 4096, oversizedBodies: .truncate) { .echo($0) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        let framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: \(length)"
        try client.send("PUT /upload HTTP/1.1\r\nHost: x\r\n\(framing)\r\n\r\n")
        ResidentMemory.trim()
        let before = ResidentMemory.mebibytes()
        var peak = before ?? 0
        var digest = BodyDigest()
        var offset: Int64 = 0
        while offset < length {
            let piece = GeneratedContent.pattern.bytes(in: offset..<min(length, offset + (1 << 20) + 7))
            digest.update(piece)
            try client.send(chunked ? Data("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Data("\r\n".utf8) : piece)
            offset += Int64(piece.count)
            if offset % (32 << 20) < Int64(piece.count) { peak = max(peak, ResidentMemory.mebibytes() ?? 0) }
        }
        if chunked { try client.send("0\r\n\r\n") }
        let response = try client.readResponse()
        let echo = try JSONDecoder().decode(BodyEcho.self, from: response.body)
        // Checked here, off the test's task: a failure throws, with what was wrong.
        guard response.status == 200, echo.bodyLength == length, echo.bodyDigest == BodyDigest.hexadecimal(digest.value),
              echo.bodyIsTruncated, Data(base64Encoded: echo.body) == GeneratedContent.pattern.bytes(in: 0..<4096)
        else { throw UploadMismatch(status: response.status, length: echo.bodyLength, truncated: echo.bodyIsTruncated) }
        print("resident memory while uploading 300 MiB: \(before ?? 0) MiB before, peak \(peak) MiB")
        return before.map { peak - $0 }
    }

    private struct UploadMismatch: Error {
        let status: Int
        let length: Int64
        let truncated: Bool
    }

    @Test func aFileUploadedWithURLSessionOverTheLimitGetsItsLengthAndDigest() async throws {
        let length: Int64 = 3 << 20 + 5
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-upload-\(UUID())")
        try GeneratedContent.pattern.bytes(in: 0..<length).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try LoopbackServer(bodyBufferLimit: 1 << 20, oversizedBodies: .truncate) { .echo($0) }
        defer { server.shutdown() }
        var request = URLRequest(url: server.url("/file"))
        request.httpMethod = "POST"
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        let (data, _) = try await URLSession(configuration: configuration).upload(for: request, fromFile: file)
        let echo = try JSONDecoder().decode(BodyEcho.self, from: data)
        #expect(echo.bodyLength == length)
        #expect(echo.bodyDigest == BodyDigest.hexadecimal(try BodyDigest.ofFile(at: file)))
        #expect(echo.bodyIsTruncated)
        #expect(Data(base64Encoded: echo.body)?.count == 1 << 20)
    }

    @Test func bodiesWithinTheLimitAreKeptWholeInEitherMode() throws {
        for mode in [LoopbackServer.OversizedBodies.reject, .truncate] {
            let server = try LoopbackServer(bodyBufferLimit: 10, oversizedBodies: mode) { request in
                .text("\(request.body.count) \(request.bodyLength) \(request.bodyIsTruncated) \(request.bodyDigest)")
            }
            defer { server.shutdown() }
            let client = try RawClient(port: server.port)
            defer { client.close() }
            try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789")
            let expected = "10 10 false \(BodyDigest.of(Data("0123456789".utf8)))"
            #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == expected)
        }
    }

    @Test(arguments: [
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nghijkl\r\n",
    ])
    func bodiesOverTheLimitAreRefusedByDefault(request: String) throws {
        let server = try LoopbackServer(bodyBufferLimit: 10) { _ in .text("should not run") }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send(request)
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(try client.readToEnd().isEmpty)
        #expect(server.requestCount == 0)
    }

    @Test func truncatedRequestsKeepTheConnectionForTheNextOne() throws {
        let server = try LoopbackServer(bodyBufferLimit: 3, oversizedBodies: .truncate) { request in
            .text("\(request.path) \(String(decoding: request.body, as: UTF8.self)) \(request.bodyLength)")
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send(
            "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\nabcdefgh"
                + "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n4\r\nzwvu\r\n0\r\n\r\n"
        )
        #expect(try client.readResponse().body == Data("/a abc 8".utf8))
        #expect(try client.readResponse().body == Data("/b xyz 6".utf8))
    }

    @Test func theDigestIsFNV1a64() {
        #expect(BodyDigest.of(Data()) == 0xCBF2_9CE4_8422_2325)
        #expect(BodyDigest.of(Data("a".utf8)) == 0xAF63_DC4C_8601_EC8C)
        #expect(BodyDigest.of(Data("foobar".utf8)) == 0x8594_4171_F739_67E8)
        #expect(BodyDigest.hexadecimal(0xAB) == "00000000000000ab")
        var split = BodyDigest()
        split.update(Data("foo".utf8))
        split.update(Data("bar".utf8))
        #expect(split.value == BodyDigest.of(Data("foobar".utf8)))
        #expect(ServerRequest(method: "POST", target: "/", body: Data("foobar".utf8)).bodyDigest == split.value)
    }
}
