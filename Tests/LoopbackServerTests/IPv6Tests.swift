import Foundation
import LoopbackServer
import Testing

/// Whether this machine can bind ::1 (containers often have no IPv6 loopback).
private let ipv6LoopbackAvailable: Bool = {
    guard let port = try? LoopbackServer.unusedPort(host: .ipv6) else { return false }
    return port > 0
}()

/// ``LoopbackServer/Host/ipv6``, seen through raw sockets: swift-corelibs-foundation's
/// URLSession cannot reach IPv6 literal hosts on Linux.
@Suite("LoopbackServer on IPv6", .enabled(if: ipv6LoopbackAvailable, "this machine has no IPv6 loopback (::1)"))
struct IPv6Tests {
    @Test func urlsUseTheBracketedLiteral() throws {
        let server = try LoopbackServer(host: .ipv6) { _ in .close }
        defer { server.shutdown() }
        #expect(server.host == .ipv6)
        #expect(server.baseURL.absoluteString == "http://[::1]:\(server.port)")
        #expect(server.url("/a b?q=1").absoluteString == "http://[::1]:\(server.port)/a%20b?q=1")
        #expect(server.url("x").port == server.port)
    }

    @Test func requestsOverIPv6AreAnswered() throws {
        let server = try LoopbackServer(host: .ipv6) { request in .text("v6 \(request.path)") }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port, ipv6: true)
        defer { client.close() }
        try client.send("GET /one HTTP/1.1\r\nHost: [::1]\r\n\r\nGET /two HTTP/1.1\r\nHost: [::1]\r\n\r\n")
        #expect(try client.readResponse().body == Data("v6 /one".utf8))
        #expect(try client.readResponse().body == Data("v6 /two".utf8))
        #expect(server.connectionCount == 1)
    }

    @Test func generatedBodiesStreamOverIPv6() throws {
        let server = try LoopbackServer(host: .ipv6) { _ in .generated(length: 5_000_000, chunked: true) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port, ipv6: true)
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n")
        #expect(try client.readHead().headers["transfer-encoding"] == "chunked")
        #expect(try client.readToEnd().count > 5_000_000)
    }

    @Test func unusedIPv6PortsRefuseConnections() throws {
        let port = try LoopbackServer.unusedPort(host: .ipv6)
        #expect(throws: RawClient.ConnectError.refused) { try RawClient(port: port, ipv6: true) }
    }
}
