import DeferredQueueTesting
import Foundation
@testable import LoopbackServer
import Testing

/// A connection whose read or write source stops reporting (as a lost epoll
/// registration would) is still served: the listener's sweep, once a second,
/// finds a socket that stayed ready across two sweeps without its source
/// firing, replaces the source and does what it missed, so the connection is
/// late once (two seconds at most), never unanswered.
@Suite("LoopbackServer: connections whose sources never report are served by the sweep")
struct ConnectionSweepTests {
    @Test func requestsOnAConnectionWhoseReadSourceNeverReportsAreAnswered() throws {
        let server = try LoopbackServer { .text("answered \($0.target)") }
        defer { server.shutdown() }
        server.silenceConnectionSources(read: true)
        // Once the sweep has replaced the read source, only the replacement can serve the second request.
        server.stopSweepAfterMiss()
        let client = try RawClient(port: server.port)
        defer { client.close() }
        // Two requests on one connection: the replacement source serves the second.
        for path in ["/first", "/second"] {
            try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "answered \(path)")
        }
        // Without the sweep nothing reads the first request, and without the
        // replacement nothing reads the second: the client's read times out above.
        #expect(server.missedSourceEvents == 1)
        #expect(server.connectionCount == 1)
    }

    @Test func aReplyLargerThanTheSocketTakesIsWrittenWhenTheWriteSourceNeverReports() async throws {
        // More than the socket buffers take at once (the client's is kept small), so the write source is needed.
        let body = GeneratedContent.pattern.bytes(in: 0..<(8 << 20))
        let server = try LoopbackServer { _ in .response(status: 200, body: body) }
        defer { server.shutdown() }
        server.silenceConnectionSources(write: true)
        // One sweep's write: a second miss would be counted while the client reads.
        server.stopSweepAfterMiss()
        let client = try RawClient(port: server.port, receiveBuffer: 64 << 10)
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        // Read only once the socket is full: a client reading as fast as the server
        // writes may take the whole reply without the server ever needing its write source.
        #expect(await eventually(within: 60) { server.someConnectionWaitsToWrite })
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.body == body)
        // Without the sweep the reply stops once the socket is full and the client's read times out above.
        #expect(server.missedSourceEvents == 1)
    }
}
