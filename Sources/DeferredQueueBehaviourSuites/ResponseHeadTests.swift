import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// A response head one transport's parser let through and the other's
/// refused, or that a parser refused with an error of its own (libcurl's
/// `URLError.unknown`); the whole reply is sent as it is.
struct HostileHead: Sendable, CustomTestStringConvertible {
    let name: String
    let reply: String
    /// Whether both transports must call it a malformed response (otherwise
    /// any error will do, never the body).
    let isBadServerResponse: Bool

    var testDescription: String { name }

    static let all: [HostileHead] = [
        HostileHead(name: "a bare CR inside a field value",
                    reply: "HTTP/1.1 200 OK\r\nX-A: a\rSet-Cookie: injected=1\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "a control character in a field value",
                    reply: "HTTP/1.1 200 OK\r\nX-A: a\u{01}b\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "DEL in a field value",
                    reply: "HTTP/1.1 200 OK\r\nX-A: a\u{7F}b\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "NUL in a field value",
                    reply: "HTTP/1.1 200 OK\r\nX-A: a\u{0}b\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "NUL in a field name",
                    reply: "HTTP/1.1 200 OK\r\nX-\u{0}A: b\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "NUL in a cookie",
                    reply: "HTTP/1.1 200 OK\r\nSet-Cookie: nul=a\u{0}b\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "a field line without a colon",
                    reply: "HTTP/1.1 200 OK\r\nX-A b\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "a continuation line before the first field",
                    reply: "HTTP/1.1 200 OK\r\n X-A: a\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "a field line over 100 KiB",
                    reply: "HTTP/1.1 200 OK\r\nX-A: \(String(repeating: "a", count: 150 << 10))\r\nContent-Length: 5\r\n\r\nhello",
                    isBadServerResponse: true),
        HostileHead(name: "a 101 nobody asked for, then a smuggled response",
                    reply: "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
                        + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "a status code of letters",
                    reply: "HTTP/1.1 abc OK\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "a status code of four digits",
                    reply: "HTTP/1.1 1000 Too Big\r\nContent-Length: 5\r\n\r\nhello", isBadServerResponse: true),
        HostileHead(name: "a transfer coding before chunked",
                    reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", isBadServerResponse: false),
        HostileHead(name: "an unknown transfer coding",
                    reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\nhello", isBadServerResponse: false),
        HostileHead(name: "a transfer coding after chunked",
                    reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n5\r\nhello\r\n0\r\n\r\n", isBadServerResponse: false),
        HostileHead(name: "chunked and an empty item",
                    reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked,\r\n\r\n5\r\nhello\r\n0\r\n\r\n", isBadServerResponse: false),
        HostileHead(name: "chunked, a space and an empty item",
                    reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked ,\r\n\r\n5\r\nhello\r\n0\r\n\r\n", isBadServerResponse: false),
        HostileHead(name: "chunked and a tab",
                    reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\t\r\n\r\n5\r\nhello\r\n0\r\n\r\n", isBadServerResponse: false),
        HostileHead(name: "chunked twice",
                    reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                    isBadServerResponse: false),
    ]

    /// The case named `name`.
    static func named(_ name: String) -> HostileHead {
        guard let head = all.first(where: { $0.name == name }) else { preconditionFailure("no hostile head named \(name)") }
        return head
    }
}

@Suite("Responses: a head with control characters, an unasked-for 101 or a transfer coding the transport cannot undo is an error")
struct ResponseHeadTests {
    @Test(arguments: HostileHead.all)
    func aHostileHeadIsRefusedAndItsBodyNeverDelivered(_ head: HostileHead) async throws {
        let server = try LoopbackServer { _ in .raw(Data(head.reply.utf8)) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await response { session.request(server.url("/")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value == nil, "\(TestTransport.name), \(head.name): \(String(describing: result?.result))")
        #expect(result?.error != nil)
        if head.isBadServerResponse {
            #expect(result?.error?.urlError?.code == .badServerResponse, "\(TestTransport.name), \(head.name): \(String(describing: result?.error))")
        }
        #expect(session.cookieStore?.cookieHeader(for: server.url("/")) == nil, "no cookie of a refused head is kept")
    }

    /// The same 101 in a stream: not one byte after it reaches the handler.
    @Test func aStreamHandsOverNothingAfterAnUnaskedFor101() async throws {
        let server = try LoopbackServer { _ in .raw(Data(HostileHead.named("a 101 nobody asked for, then a smuggled response").reply.utf8)) }
        defer { server.shutdown() }
        let log = StreamEventLog<Data, Never>()
        TestTransport.makeSession().streamRequest(server.url("/")).responseStream(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait())
        #expect(log.completions.events.first?.error?.urlError?.code == .badServerResponse, "\(TestTransport.name)")
        #expect(log.values.count == 0)
    }

    /// A 101 answering a request that asked to upgrade is not refused as
    /// unsolicited (what a transport then does with it is its own).
    @Test func a101ToARequestThatAskedToUpgradeIsNotCalledMalformed() async throws {
        let server = try LoopbackServer { _ in .raw(Data("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n".utf8)) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await response {
            session.request(server.url("/"), headers: ["Upgrade": "h2c", "Connection": "Upgrade"])
                .responseData(queue: handlerQueue, completionHandler: $0)
        }
        let description = String(describing: result?.error)
        #expect(!description.contains("did not ask to upgrade"), "\(TestTransport.name): \(description)")
        #expect(result?.error?.urlError?.code != .badServerResponse || result?.response?.statusCode == 101, "\(TestTransport.name): \(description)")
    }
}

/// A body whose content coding is corrupt or unknown is said to be so on
/// both transports, framed by length or chunked, not a lost connection
/// (which a retry policy retries).
@Suite("Responses: a corrupt or unknown content coding is cannotDecodeContentData")
struct ContentCodingErrorTests {
    @Test(arguments: [
        ("gzip", "this is not gzip at all"),
        ("deflate", "neither is this deflate"),
        ("br", "nor this brotli"),
        ("x-unknown", "a coding nobody knows"),
        (Array(repeating: "gzip", count: 20).joined(separator: ", "), "twenty layers: libcurl refuses more than five"),
    ], [false, true])
    func aCorruptOrUnknownCodingIsCannotDecodeContentData(coding: (name: String, body: String), chunked: Bool) async throws {
        let result = try await Self.answer(coding: coding.name, [Data(coding.body.utf8)], chunked: chunked)
        let urlError = result?.error?.urlError
        #expect(urlError?.code == .cannotDecodeContentData, "\(TestTransport.name), \(coding.name): \(String(describing: result?.error))")
        #expect(result?.value == nil)
        #expect(urlError?.failingURL != nil, "\(TestTransport.name), \(coding.name): the error names the URL")
        // libcurl refuses twenty layers with the head, before handing it over.
        if !coding.body.hasPrefix("twenty layers") {
            #expect(result?.response?.statusCode == 200, "\(TestTransport.name), \(coding.name): the head that arrived is kept")
        }
    }

    /// A whole gzip member of "hello-gzip", then bytes that are none:
    /// libcurl says only "Failed writing received data" of them, or "Failed
    /// reading the chunked-encoded stream" under chunked framing.
    @Test(arguments: [false, true])
    func garbageAfterTheEndOfAGzipStreamIsCannotDecodeContentData(chunked: Bool) async throws {
        let result = try await Self.answer(coding: "gzip", [Data(Self.helloGzip), Data("ATTACKER-GARBAGE".utf8)], chunked: chunked)
        #expect(result?.error?.urlError?.code == .cannotDecodeContentData, "\(TestTransport.name): \(String(describing: result?.error))")
        #expect(result?.value == nil)
    }

    /// Two gzip members, "first " and "second" (RFC 1952 allows several):
    /// decoded whole (AsyncHTTPClient) or refused (libcurl decodes one), never
    /// handed over as the first alone.
    @Test(arguments: [false, true])
    func aSecondGzipMemberIsDecodedOrRefusedNeverDropped(chunked: Bool) async throws {
        let first: [UInt8] = [
            0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x4B, 0xCB, 0x2C,
            0x2A, 0x2E, 0x51, 0x00, 0x00, 0xFC, 0x7A, 0xF1, 0x1C, 0x06, 0x00, 0x00, 0x00,
        ]
        let second: [UInt8] = [
            0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x2B, 0x4E, 0x4D,
            0xCE, 0xCF, 0x4B, 0x01, 0x00, 0x69, 0x11, 0x1F, 0xB6, 0x06, 0x00, 0x00, 0x00,
        ]
        let result = try await Self.answer(coding: "gzip", [Data(first), Data(second)], chunked: chunked)
        if let value = result?.value {
            #expect(String(decoding: value, as: UTF8.self) == "first second", "\(TestTransport.name)")
        } else {
            #expect(result?.error?.urlError?.code == .cannotDecodeContentData, "\(TestTransport.name): \(String(describing: result?.error))")
        }
    }

    /// A GET whose chunked gzip body cannot be decoded is sent once: a retry
    /// would get the same bytes.
    @Test func aGetWhoseChunkedBodyCannotBeDecodedIsNotRetried() async throws {
        let hits = Counter()
        let reply = Self.reply(coding: "gzip", [Data(Self.helloGzip), Data("ATTACKER-GARBAGE".utf8)], chunked: true)
        let server = try LoopbackServer { _ in
            hits.increment()
            return .raw(reply)
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession(retryPolicy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        let result = await response { session.request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.urlError?.code == .cannotDecodeContentData, "\(TestTransport.name): \(String(describing: result?.error))")
        #expect(hits.count == 1)
    }

    /// A chunked body whose connection closes after a chunk's size line, or
    /// inside its data, is a lost connection whether or not it is coded:
    /// the bytes that came decode fine, and a retry may get the rest.
    @Test(arguments: [nil, "gzip"] as [String?], [0, 12])
    func aChunkedBodyCutInsideAChunkIsNetworkConnectionLost(coding: String?, sentBytes: Int) async throws {
        let head = "HTTP/1.1 200 OK\r\n" + (coding.map { "Content-Encoding: \($0)\r\n" } ?? "") + "Transfer-Encoding: chunked\r\n\r\n"
        let reply = Data((head + String(Self.helloGzip.count, radix: 16) + "\r\n").utf8) + Data(Self.helloGzip.prefix(sentBytes))
        let server = try LoopbackServer { _ in .raw(reply) }
        defer { server.shutdown() }
        let result = await response { TestTransport.makeSession().request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.urlError?.code == .networkConnectionLost, "\(TestTransport.name): \(String(describing: result?.error))")
    }

    /// A whole gzip member of "hello-gzip".
    private static let helloGzip: [UInt8] = [
        0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xCB, 0x48, 0xCD, 0xC9, 0xC9,
        0xD7, 0x4D, 0xAF, 0xCA, 0x2C, 0x00, 0x00, 0xA8, 0xAE, 0x42, 0x27, 0x0A, 0x00, 0x00, 0x00,
    ]

    /// The response to a GET answered with `parts` as its body, declared coded with `coding`.
    private static func answer(coding: String, _ parts: [Data], chunked: Bool) async throws -> DataResponse<Data, HTTPError>? {
        let reply = Self.reply(coding: coding, parts, chunked: chunked)
        let server = try LoopbackServer { _ in .raw(reply) }
        defer { server.shutdown() }
        return await response { TestTransport.makeSession().request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
    }

    /// A whole reply whose body is `parts`, framed by `Content-Length` or
    /// sent one chunk per part.
    private static func reply(coding: String, _ parts: [Data], chunked: Bool) -> Data {
        let head = "HTTP/1.1 200 OK\r\nContent-Encoding: \(coding)\r\n"
        guard chunked else {
            let body = parts.reduce(Data(), +)
            return Data((head + "Content-Length: \(body.count)\r\n\r\n").utf8) + body
        }
        let chunks = parts.reduce(Data()) { $0 + Data((String($1.count, radix: 16) + "\r\n").utf8) + $1 + Data("\r\n".utf8) }
        return Data((head + "Transfer-Encoding: chunked\r\n\r\n").utf8) + chunks + Data("0\r\n\r\n".utf8)
    }
}
