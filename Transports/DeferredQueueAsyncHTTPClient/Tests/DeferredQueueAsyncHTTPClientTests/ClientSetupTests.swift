import AsyncHTTPClient
import DeferredQueueAsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing
@testable import DeferredQueue

/// Which AsyncHTTPClient the transport runs on: never one it built that
/// follows redirects itself, and never shutting down a client it did not create.
@Suite("AsyncHTTPClientTransport: the client it runs on")
struct ClientSetupTests {
    @Test func theSharedClientIsReplacedByOneThatDoesNotFollowRedirects() async throws {
        for transport in [AsyncHTTPClientTransport(), AsyncHTTPClientTransport(client: .shared)] {
            #expect(transport.client !== HTTPClient.shared)
            #expect(transport.acceptEncoding == "gzip, deflate")
            transport.shutdown()
            transport.shutdown()
        }
        // HTTPClient.shared is untouched (it cannot be shut down anyway).
        let server = try LoopbackServer { _ in .text("still here") }
        defer { server.shutdown() }
        let response = try await HTTPClient.shared.get(url: server.url("/").absoluteString).get()
        #expect(response.status.code == 200)
    }

    @Test(arguments: [false, true])
    func aCallersClientIsUsedAsItIsAndNotShutDown(decompresses: Bool) async throws {
        let configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, decompression: decompresses ? .enabled(limit: .none) : .disabled
        )
        let client = HTTPClient(configuration: configuration)
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        do {
            let transport = AsyncHTTPClientTransport(client: client, configuration: configuration)
            #expect(transport.client === client)
            #expect(
                transport.acceptEncoding == (decompresses ? "gzip, deflate" : nil),
                "only what the client decodes is asked for"
            )
            let session = Session(transport: transport)
            #expect(try await session.request(server.url("/")).serializingString().value == "ok")
            transport.shutdown()
        }
        // The transport left the caller's client running.
        let response = try await client.get(url: server.url("/").absoluteString).get()
        #expect(response.status.code == 200)
        try await client.shutdown()
    }

    @Test func aCallersClientWithoutItsConfigurationIsAssumedNotToDecompress() async throws {
        let client = HTTPClient(configuration: .init(redirectConfiguration: .disallow))
        let transport = AsyncHTTPClientTransport(client: client)
        #expect(transport.client === client)
        #expect(transport.acceptEncoding == nil)
        try await client.shutdown()
    }

    @Test func aConfigurationThatFollowsRedirectsGetsAClientThatDoesNot() async throws {
        let server = try LoopbackServer { request in
            request.path == "/moved" ? .redirect(to: "/target") : .text("target")
        }
        defer { server.shutdown() }
        let transport = AsyncHTTPClientTransport(
            configuration: .init(redirectConfiguration: .follow(max: 5, allowCycles: false), decompression: .disabled)
        )
        #expect(transport.acceptEncoding == "gzip, deflate", "the transport's own client always decodes, bounded")
        let session = Session(transport: transport)
        let raw = try await session.request(server.url("/moved")).redirect(using: .doNotFollow)
            .serializingResponse().value
        #expect(raw.response?.statusCode == 302, "the session, not AsyncHTTPClient, decides redirects")
        #expect(try await session.request(server.url("/moved")).serializingString().value == "target")
    }
}
