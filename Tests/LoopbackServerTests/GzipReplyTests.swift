import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing

/// ``Reply/gzip(status:headers:decodedLength:content:chunked:chunkSize:interval:)``:
/// small compressed replies that decode to large bodies.
@Suite("LoopbackServer gzip replies")
struct GzipReplyTests {
    @Test(arguments: [GeneratedContent.pattern, .repeating(0x61)])
    func urlSessionDecodesSixtyFourMebibytes(content: GeneratedContent) async throws {
        try await MemoryHeavy.exclusively { try await download64MiB(content: content) }
    }

    private func download64MiB(content: GeneratedContent) async throws {
        let length: Int64 = 64 << 20
        let server = try LoopbackServer { _ in .gzip(decodedLength: length, content: content) }
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        let (data, response) = try await URLSession(configuration: configuration).data(from: server.url("/"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(Int64(data.count) == length)
        #expect(content.firstMismatch(in: data, startingAt: 0) == nil)
    }

    @Test func theCompressedBodyIsFarSmallerAndAnnouncedExactly() throws {
        let server = try LoopbackServer { _ in .gzip(decodedLength: 64 << 20) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.headers["content-encoding"] == "gzip")
        #expect(response.body.count < 1 << 20)
        #expect(response.headers["content-length"] == "\(response.body.count)")
    }

    @Test(arguments: [0, 1, 2, 3, 250, 251, 252, 253, 254, 255, 508, 509, 510, 100_000, 1_048_593])
    func compressedBodiesInflateWithTheRightChecksum(length: Int) throws {
        let server = try LoopbackServer { request in
            let content: GeneratedContent = request.path == "/pattern" ? .pattern : .repeating(0xF0)
            return .gzip(decodedLength: Int64(length), content: content, chunked: request.query["chunked"] != nil)
        }
        defer { server.shutdown() }
        for (path, content) in [("/pattern", GeneratedContent.pattern), ("/byte?chunked", .repeating(0xF0))] {
            let client = try RawClient(port: server.port)
            defer { client.close() }
            try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let head = try client.readHead()
            let rest = try client.readToEnd()
            let body = head.headers["transfer-encoding"] == "chunked" ? try dechunk(rest) : rest
            let decoded = try FixedInflater.gunzip([UInt8](body))
            #expect(decoded == [UInt8](content.bytes(in: 0..<Int64(length))), "\(path), \(length) bytes")
        }
    }

    /// A decoder that is not ours (gzip(1) checks the CRC and length too), when installed.
    @Test func gzipAcceptsTheStream() async throws {
        try await MemoryHeavy.exclusively { try await offThePool { try decodeWithGzip() } }
    }

    private func decodeWithGzip() throws {
        let tool = URL(fileURLWithPath: "/usr/bin/gzip")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            print("gzipAcceptsTheStream: skipped, /usr/bin/gzip is not installed")
            return
        }
        let length: Int64 = 64 << 20 + 123
        let server = try LoopbackServer { _ in .gzip(decodedLength: length) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let compressed = try client.readResponse().body
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-\(UUID()).gz")
        try compressed.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-\(UUID()).out")
        defer { try? FileManager.default.removeItem(at: output) }
        #expect(try runTool(tool, ["-dc", file.path], output: output) == 0)
        let decoded = try Data(contentsOf: output)
        #expect(Int64(decoded.count) == length)
        #expect(GeneratedContent.pattern.firstMismatch(in: decoded, startingAt: 0) == nil)
    }

    @Test func aSlowGzipStreamCanBeAbandonedMidway() async throws {
        let server = try LoopbackServer { _ in .gzip(decodedLength: 1 << 30, chunkSize: 512, interval: 0.01) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        #expect(head.headers["content-encoding"] == "gzip")
        let received = try client.stream(upTo: 2048) { _ in }
        #expect(received == 2048)
        client.close()
        #expect(await eventually { server.openConnectionCount == 0 })
    }

    /// The payload of a chunked body.
    private func dechunk(_ data: Data) throws -> Data {
        var bytes = [UInt8](data)[...]
        var body = Data()
        while let lineEnd = bytes.firstIndex(of: 10) {
            let sizeText = String(decoding: bytes[..<lineEnd], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let size = try #require(Int(sizeText, radix: 16))
            bytes = bytes[(lineEnd + 1)...]
            if size == 0 { break }
            body.append(contentsOf: bytes.prefix(size))
            bytes = bytes.dropFirst(size + 2)
        }
        return body
    }
}
