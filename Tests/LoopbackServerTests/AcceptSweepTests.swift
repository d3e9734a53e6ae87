import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import LoopbackServer
import Testing

/// A listening socket whose read source stops reporting connections (as a
/// lost epoll registration would) still accepts them: a sweep once a second
/// accepts what already waited at the sweep before, so a request is late
/// (two seconds at most), never unanswered.
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
}
