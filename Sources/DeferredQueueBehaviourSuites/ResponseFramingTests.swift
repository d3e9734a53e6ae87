import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// A response head whose framing two parsers could read differently, and the body bytes after it.
struct HostileFraming: Sendable, CustomTestStringConvertible {
    let name: String
    let head: String
    let body: String

    var testDescription: String { name }

    /// The whole reply, sent as it is by the server, which then closes the connection.
    var reply: Reply {
        .raw(Data(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n" + head + "\r\n" + body).utf8))
    }

    static let all: [HostileFraming] = [
        HostileFraming(name: "two different Content-Length fields", head: "Content-Length: 5\r\nContent-Length: 10\r\n", body: "helloworld"),
        HostileFraming(name: "two different Content-Length fields, longer first", head: "Content-Length: 10\r\nContent-Length: 5\r\n", body: "helloworld"),
        HostileFraming(name: "a Content-Length list", head: "Content-Length: 5, 10\r\n", body: "helloworld"),
        HostileFraming(name: "two equal Content-Length fields", head: "Content-Length: 5\r\nContent-Length: 5\r\n", body: "hello"),
        HostileFraming(name: "a Content-Length list of equal values", head: "Content-Length: 5, 5\r\n", body: "hello"),
        HostileFraming(name: "a negative Content-Length", head: "Content-Length: -5\r\n", body: "hello"),
        HostileFraming(name: "a signed Content-Length", head: "Content-Length: +5\r\n", body: "hello"),
        HostileFraming(name: "a non-numeric Content-Length", head: "Content-Length: abc\r\n", body: "hello"),
        HostileFraming(name: "a hexadecimal Content-Length", head: "Content-Length: 0x5\r\n", body: "hello"),
        HostileFraming(name: "an overflowing Content-Length", head: "Content-Length: 99999999999999999999999\r\n", body: "hello"),
        HostileFraming(name: "Content-Length beside Transfer-Encoding", head: "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
                       body: "5\r\nhello\r\n0\r\n\r\n"),
        HostileFraming(name: "Transfer-Encoding beside Content-Length", head: "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
                       body: "5\r\nhello\r\n0\r\n\r\n"),
        HostileFraming(name: "an overflowing chunk size", head: "Transfer-Encoding: chunked\r\n",
                       body: "FFFFFFFFFFFFFFFFFFFFFFFF\r\nhello\r\n0\r\n\r\n"),
        HostileFraming(name: "a non-hexadecimal chunk size", head: "Transfer-Encoding: chunked\r\n", body: "zz\r\nhello\r\n0\r\n\r\n"),
        HostileFraming(name: "a missing chunk size", head: "Transfer-Encoding: chunked\r\n", body: "\r\nhello\r\n0\r\n\r\n"),
        // Over 500 KiB of head: past what either transport's parser holds (libcurl's cap is 300 KiB).
        HostileFraming(
            name: "a head of 5,000 fields",
            head: (0..<5_000).map { "X-Flood-\($0): \(String(repeating: "a", count: 100))\r\n" }.joined() + "Content-Length: 5\r\n",
            body: "hello"
        ),
    ]
}

@Suite("Responses: framing that two parsers could read differently is an error, never a 200")
struct ResponseFramingTests {
    @Test(arguments: HostileFraming.all)
    func ambiguousFramingIsABadServerResponse(_ framing: HostileFraming) async throws {
        let server = try LoopbackServer { _ in framing.reply }
        defer { server.shutdown() }
        let result = await response {
            TestTransport.makeSession().request(server.url("/")).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.urlError?.code == .badServerResponse,
                "\(TestTransport.name), \(framing.name): \(String(describing: result?.result))")
        #expect(result?.value == nil)
    }

    @Test(arguments: [HostileFraming.all[0], HostileFraming.all[2], HostileFraming.all[13]])
    func streamsAndDownloadsRefuseAmbiguousFramingToo(_ framing: HostileFraming) async throws {
        let server = try LoopbackServer { _ in framing.reply }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let download = await downloadResponse { session.download(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(download?.error?.urlError?.code == .badServerResponse, "download: \(String(describing: download?.result))")
        #expect(download?.fileURL == nil)
        let log = StreamEventLog<Data, Never>()
        session.streamRequest(server.url("/")).responseStream(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait())
        #expect(log.completions.events.first?.error?.urlError?.code == .badServerResponse, "stream: \(TestTransport.name)")
        if framing.head.contains("Content-Length") {
            #expect(log.values.count == 0, "no byte of a body whose end is ambiguous is handed over")
        }
    }

    @Test func aSoundRawResponseStillSucceeds() async throws {
        let sound = HostileFraming(name: "one Content-Length", head: "Content-Length: 5\r\n", body: "hello")
        let chunked = HostileFraming(name: "chunked", head: "Transfer-Encoding: chunked\r\n", body: "5\r\nhello\r\n0\r\n\r\n")
        for framing in [sound, chunked] {
            let server = try LoopbackServer { _ in framing.reply }
            defer { server.shutdown() }
            let result = await response {
                TestTransport.makeSession().request(server.url("/")).responseString(queue: handlerQueue, completionHandler: $0)
            }
            #expect(result?.value == "hello", "\(framing.name): \(String(describing: result?.result))")
        }
    }
}
