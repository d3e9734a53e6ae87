import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import LoopbackServer
import Testing

/// A listening socket whose read source stops reporting connections (as a
/// lost epoll registration would) still accepts them: a sweep once a second
/// accepts what already waited at the sweep before, so a request is late
/// (two seconds at most), never unanswered, and replaces the source, so the
/// connections after it are not late.
@Suite("LoopbackServer: connections its read source never reported are accepted by the sweep")
struct AcceptSweepTests {
    @Test func aConnectionTheSourceNeverReportedIsAnswered() async throws {
        let server = try LoopbackServer { _ in .text("swept") }
        defer { server.shutdown() }
        server.silenceAcceptSource()
        var request = URLRequest(url: server.url("/"))
        // Far beyond the sweep's two seconds; without the sweep nothing accepts the connection.
        request.timeoutInterval = 30
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "swept")
        #expect(server.connectionCount == 1)
    }

    @Test func theConnectionsAfterASweptOneAreAcceptedByTheReplacementSource() throws {
        let server = try LoopbackServer { .text("answered \($0.target)") }
        defer { server.shutdown() }
        server.silenceAcceptSource()
        for path in ["/first", "/second", "/third"] {
            // A connection each: the second and third need the listening socket's source.
            let client = try RawClient(port: server.port)
            defer { client.close() }
            try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "answered \(path)")
            // The sweep that accepted the first also replaced the source (in
            // the same turn); without the sweep only that source can accept
            // the rest, which RawClient's read timeout would otherwise end.
            if path == "/first" { server.stopSweep() }
        }
        #expect(server.connectionCount == 3)
        #expect(server.sweptConnections == 1)
    }
}
