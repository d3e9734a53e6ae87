import DeferredQueueBehaviourSuites
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// Responses that swift-corelibs-foundation's URLSession mishandles on Linux
/// (RELIABILITY.md), answered correctly on AsyncHTTPClient: each test sends
/// the exact bytes with `Reply.raw` or uses the case URLSession gets wrong.
@Suite("AsyncHTTPClientTransport: what URLSession on Linux gets wrong")
struct LinuxDefectTests {
    let session = TestTransport.makeSession()

    /// A server that answers every request with exactly `bytes`, then closes.
    func serving(_ bytes: String) throws -> LoopbackServer {
        try LoopbackServer { _ in .raw(Data(bytes.utf8)) }
    }

    @Test func partialHeadersThenCloseIsOneTransportErrorPerHandler() async throws {
        let server = try serving("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Half: ")
        defer { server.shutdown() }
        let report = try #require(await probe(session.request(server.url("/"))), "every handler ran")
        #expect(report.eachRanOnce, "\(report.kinds)")
        #expect(report.allKinds.allSatisfy { $0.hasPrefix("sessionTaskFailed") }, "\(report.allKinds)")
    }

    /// corelibs takes the trailer for a new head and aborts the process.
    @Test func aChunkedBodyWithATrailerFieldIsAccepted() async throws {
        let server = try serving("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Trailer: v\r\n\r\n")
        defer { server.shutdown() }
        #expect(try await session.request(server.url("/")).serializingString().value == "hello")
    }

    /// libcurl decodes the body and never checks that the gzip stream ended:
    /// on URLSession this is a short success.
    @Test(arguments: [false, true])
    func aGzipBodyCutInsideItsStreamButFramedWholeFails(chunked: Bool) async throws {
        // A gzip header, then one stored deflate block of 20,000 bytes cut in
        // half: no end of stream, no CRC, no length.
        let length: UInt16 = 20_000
        var member: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF, 0x01]
        member += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
        member += (0..<Int(length) / 2).map { UInt8(ascii: "a") + UInt8($0 % 10) }
        let cut = Data(member)
        let framing = chunked ? "Transfer-Encoding: chunked\r\n\r\n" + String(cut.count, radix: 16) + "\r\n" : "Content-Length: \(cut.count)\r\n\r\n"
        let end = chunked ? Data("\r\n0\r\n\r\n".utf8) : Data()
        let bytes = Data(("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n" + framing).utf8) + cut + end
        let server = try LoopbackServer { _ in .raw(bytes) }
        defer { server.shutdown() }
        let result = await session.request(server.url("/")).serializingData().result
        guard case .failure(let error) = result, case .sessionTaskFailed(let urlError)? = error.asHTTPError else {
            Issue.record("a cut gzip body was \(result)")
            return
        }
        #expect(urlError.code == .cannotDecodeContentData)
    }

    @Test func contentLengthWithoutASpaceIsAccepted() async throws {
        let server = try serving("HTTP/1.1 200 OK\r\nContent-Length:5\r\n\r\nhello")
        defer { server.shutdown() }
        #expect(try await session.request(server.url("/")).serializingString().value == "hello")
    }

    @Test func aStatusLineWithoutAReasonPhraseIsAccepted() async throws {
        let server = try serving("HTTP/1.1 200\r\nContent-Length: 5\r\n\r\nhello")
        defer { server.shutdown() }
        let response = try await session.request(server.url("/")).serializingResponse(using: StringResponseSerializer()).value
        #expect(response.value == "hello")
        #expect(response.response?.statusCode == 200)
    }

    @Test(.enabled(if: IPv6Listener.isAvailable, "::1 cannot be bound on this machine"))
    func anIPv6LiteralHostIsReached() async throws {
        let listener = try IPv6Listener(reply: "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nover v6")
        defer { listener.close() }
        let text = try await session.request("http://[::1]:\(listener.port)/").serializingString().value
        #expect(text == "over v6")
    }

    @Test func a401WithABasicChallengeIsDeliveredAndCanBeAnswered() async throws {
        let server = try LoopbackServer { request in
            request.header("Authorization") == "Basic dXNlcjpzZWNyZXQ="
                ? .text("welcome")
                : .response(status: 401, headers: [("WWW-Authenticate", #"Basic realm="tests""#)], body: Data("denied".utf8))
        }
        defer { server.shutdown() }
        let denied = try await session.request(server.url("/")).serializingResponse(using: StringResponseSerializer()).value
        #expect(denied.response?.statusCode == 401)
        #expect(denied.value == "denied")
        let answered = try await session.request(server.url("/")).authenticate(username: "user", password: "secret")
            .serializingString().value
        #expect(answered == "welcome")
    }

    @Test(arguments: [307, 308])
    func aTemporaryOrPermanentRedirectKeepsThePostAndItsBody(status: Int) async throws {
        let server = try LoopbackServer { request in
            request.path == "/moved" ? .redirect(to: "/echo", status: status) : .echo(request)
        }
        defer { server.shutdown() }
        let echoed = try await session.request(server.url("/moved"), method: .post, body: Data("payload".utf8))
            .serializingJSON().value
        #expect(echoed["method"] == "POST")
        #expect(echoed["path"] == "/echo")
        #expect(echoed["body"] == "payload")
    }
}
