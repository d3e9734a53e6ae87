import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing

/// ``ServerRequest/multipartParts()`` and ``Reply/multipartEcho(_:)``.
@Suite("LoopbackServer multipart")
struct MultipartTests {
    private struct Echo: Decodable {
        struct Part: Decodable {
            var name: String?
            var filename: String?
            var contentType: String?
            var headers: [String: String]
            var length: Int
            var digest: String
            var body: String?
        }

        var parts: [Part]?
        var bodyLength: Int64
        var bodyDigest: String
        var bodyIsTruncated: Bool
    }

    private static func multipart(boundary: String, _ parts: [(headers: String, body: Data)], preamble: String = "") -> Data {
        var data = Data(preamble.utf8)
        for part in parts {
            data += Data("--\(boundary)\r\n\(part.headers)\r\n".utf8) + part.body + Data("\r\n".utf8)
        }
        return data + Data("--\(boundary)--\r\n".utf8)
    }

    @Test func urlSessionUploadsAreSplitIntoParts() async throws {
        let binary = GeneratedContent.pattern.bytes(in: 0..<10_000)
        let body = Self.multipart(boundary: "XyZ-123", [
            ("Content-Disposition: form-data; name=\"title\"\r\n", Data("hello wörld".utf8)),
            ("Content-Disposition: form-data; name=\"file\"; filename=\"a b.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\nX-Extra: 1\r\n", binary),
        ])
        let server = try LoopbackServer { .multipartEcho($0) }
        defer { server.shutdown() }
        var request = URLRequest(url: server.url("/form"))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=XyZ-123", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        let parts = try #require(echo.parts)
        #expect(parts.count == 2)
        #expect(parts[0].name == "title")
        #expect(parts[0].filename == nil)
        #expect(parts[0].contentType == nil)
        #expect(parts[0].body == "hello wörld")
        #expect(parts[0].length == 12)
        #expect(parts[1].name == "file")
        #expect(parts[1].filename == "a b.bin")
        #expect(parts[1].contentType == "application/octet-stream")
        #expect(parts[1].headers["X-Extra"] == "1")
        #expect(parts[1].length == 10_000)
        #expect(parts[1].body == nil)
        #expect(parts[1].digest == BodyDigest.hexadecimal(BodyDigest.of(binary)))
        #expect(echo.bodyLength == Int64(body.count))
        #expect(!echo.bodyIsTruncated)
    }

    @Test func quotedBoundariesPreamblesAndEmptyPartsAreRead() throws {
        var body = Self.multipart(boundary: "a;b \"c\"", [
            ("", Data()),
            ("Content-Disposition: form-data; name=\"q\\\"uoted\"; filename=plain.txt\r\n", Data("x\r\ny".utf8)),
        ], preamble: "ignore me\r\n")
        body += Data("epilogue".utf8)
        let request = ServerRequest(
            method: "POST", target: "/",
            headers: [(name: "content-type", value: #"Multipart/Form-Data; charset=utf-8; BOUNDARY="a;b \"c\"""#)],
            body: body
        )
        let parts = try request.multipartParts()
        #expect(parts.count == 2)
        #expect(parts[0].headers.isEmpty)
        #expect(parts[0].body.isEmpty)
        #expect(parts[1].name == "q\"uoted")
        #expect(parts[1].filename == "plain.txt")
        #expect(parts[1].body == Data("x\r\ny".utf8))
        #expect(parts[1].header("content-disposition")?.hasPrefix("form-data") == true)
    }

    @Test(arguments: [
        (nil, "--b\r\n\r\nx\r\n--b--", "no Content-Type header"),
        ("text/plain", "--b\r\n\r\nx\r\n--b--", "is not multipart"),
        ("multipart/form-data", "--b\r\n\r\nx\r\n--b--", "no boundary parameter"),
        ("multipart/form-data; boundary=\"\"", "--b\r\n\r\nx\r\n--b--", "1 to 70 characters"),
        ("multipart/form-data; boundary=b", "no delimiter at all", "no boundary line"),
        ("multipart/form-data; boundary=b", "--b\r\nContent-Type: text/plain\r\n", "cut short in its header block"),
        ("multipart/form-data; boundary=b", "--b\r\n\r\nunterminated content", "no boundary after its content"),
        ("multipart/form-data; boundary=b", "--b\r\n\r\nx\r\n--b", "ends after a boundary"),
        ("multipart/form-data; boundary=b", "--bogus\r\n\r\nx\r\n--b--", "not followed by CRLF"),
        ("multipart/form-data; boundary=b", "--b\r\nno colon\r\n\r\nx\r\n--b--", "bad header line"),
    ] as [(String?, String, String)])
    func malformedBodiesAreAnswered400(contentType: String?, body: String, reason: String) throws {
        let headers = contentType.map { [(name: "Content-Type", value: $0)] } ?? []
        let request = ServerRequest(method: "POST", target: "/", headers: headers, body: Data(body.utf8))
        #expect(throws: MultipartError.self) { try request.multipartParts() }
        do {
            _ = try request.multipartParts()
        } catch {
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
        let server = try LoopbackServer { .multipartEcho($0) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        let typeLine = contentType.map { "Content-Type: \($0)\r\n" } ?? ""
        try client.send("POST / HTTP/1.1\r\nHost: x\r\n\(typeLine)Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("malformed multipart body: "))
    }

    @Test func bodiesTooLargeToKeepAreSplitWhileTheyStream() throws {
        let big = GeneratedContent.pattern.bytes(in: 0..<5000)
        let body = Self.multipart(boundary: "bb", [
            ("Content-Disposition: form-data; name=\"first\"\r\n", Data("one".utf8)),
            ("Content-Disposition: form-data; name=\"big\"; filename=\"big.bin\"\r\n", big),
            ("", Data("last".utf8)),
        ], preamble: "preamble\r\n")
        let server = try LoopbackServer(bodyBufferLimit: 1000, oversizedBodies: .truncate) { .multipartEcho($0) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=bb\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n")
        for start in stride(from: 0, to: body.count, by: 777) {
            let piece = body[start..<min(start + 777, body.count)]
            try client.send(Data("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Data("\r\n".utf8))
        }
        try client.send("0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(echo.bodyIsTruncated)
        #expect(echo.bodyLength == Int64(body.count))
        #expect(echo.bodyDigest == BodyDigest.hexadecimal(BodyDigest.of(body)))
        let parts = try #require(echo.parts)
        #expect(parts.map(\.name) == ["first", "big", nil])
        #expect(parts.map(\.length) == [3, 5000, 4])
        #expect(parts.map(\.body) == ["one", nil, "last"])
        #expect(parts[1].filename == "big.bin")
        #expect(parts[1].digest == BodyDigest.hexadecimal(BodyDigest.of(big)))
    }

    @Test func malformedBodiesTooLargeToKeepAreAnswered400() throws {
        var body = Self.multipart(boundary: "b", [("", GeneratedContent.pattern.bytes(in: 0..<5000))])
        body.removeLast(8)  // no closing delimiter
        let server = try LoopbackServer(bodyBufferLimit: 1000, oversizedBodies: .truncate) { .multipartEcho($0) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
            + "Content-Length: \(body.count)\r\n\r\n")
        try client.send(body)
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("cut short"))
    }

    /// A file part far larger than the buffer: length and digest from the streaming split.
    @Test func aHundredMebibyteFilePartIsCountedAndDigested() async throws {
        try await MemoryHeavy.exclusively { try hundredMebibytePart() }
    }

    private func hundredMebibytePart() throws {
        let length: Int64 = 100 << 20
        let head = Data("--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\n".utf8)
        let tail = Data("\r\n--XX\r\nContent-Disposition: form-data; name=\"after\"\r\n\r\nend\r\n--XX--\r\n".utf8)
        let server = try LoopbackServer(bodyBufferLimit: 1 << 20, oversizedBodies: .truncate) { .multipartEcho($0) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XX\r\n"
            + "Content-Length: \(Int64(head.count + tail.count) + length)\r\n\r\n")
        try client.send(head)
        var digest = BodyDigest()
        var offset: Int64 = 0
        while offset < length {
            let piece = GeneratedContent.pattern.bytes(in: offset..<min(length, offset + (1 << 20) + 3))
            digest.update(piece)
            try client.send(piece)
            offset += Int64(piece.count)
        }
        try client.send(tail)
        let response = try client.readResponse()
        #expect(response.status == 200)
        let parts = try #require(try JSONDecoder().decode(Echo.self, from: response.body).parts)
        #expect(parts.count == 2)
        #expect(parts[0].length == Int(length))
        #expect(parts[0].digest == BodyDigest.hexadecimal(digest.value))
        #expect(parts[1].body == "end")
    }
}
