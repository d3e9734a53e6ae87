import AsyncHTTPClient
import DeferredQueueTesting
@testable import DeferredQueueAsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOEmbedded
import NIOHTTP2
import NIOPosix
import NIOSSL
import TestSupport
import Testing
@testable import DeferredQueue

/// A server that breaks HTTP/2 and keeps sending: AsyncHTTPClient never
/// closed such a connection, so its request waited for its timeout while
/// the process kept what arrived (gigabytes in seconds).
@Suite("HTTP/2: a broken connection is closed, and HTTP/1.1 is the default", .timeLimit(.minutes(3)))
struct HTTP2FloodTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates()
    }

    func transport(negotiatesHTTP2: Bool) -> AsyncHTTPClientTransport {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates([certificates.ca])]
        return AsyncHTTPClientTransport(configuration: HTTPClient.Configuration(tlsConfiguration: tls), negotiatesHTTP2: negotiatesHTTP2)
    }

    @Test(arguments: FloodingHTTP2Server.Flood.allCases)
    func endlessFramesCloseTheConnectionAndFailTheRequestAtOnce(_ flood: FloodingHTTP2Server.Flood) async throws {
        let server = try await FloodingHTTP2Server(identity: try certificates.leaf(.good), flood: flood, limit: 64 << 20)
        let session = Session(transport: transport(negotiatesHTTP2: true))
        // Far beyond the guard: only the closed connection ends the request in time.
        let result = await response(within: 60) {
            session.request(server.url(), timeout: 600).responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result != nil, "\(flood): the request waited for its timeout")
        #expect(result?.error?.urlError?.code == .networkConnectionLost, "\(flood): \(String(describing: result?.error))")
        // A GET lost before any response is sent once more, on a new connection.
        #expect((1...2).contains(server.flooded))
        #expect(server.negotiated.count == server.flooded && server.negotiated.allSatisfy { $0 == "h2" })
        #expect(await eventually(within: 60) { server.closedByClient == server.flooded }, "a connection stayed open")
        await server.stop()
    }

    @Test func theTransportsOwnClientSpeaksHTTP1UnlessAskedForHTTP2() async throws {
        let server = try await FloodingHTTP2Server(identity: try certificates.leaf(.good), limit: 1 << 20)
        let session = Session(transport: transport(negotiatesHTTP2: false))
        let result = await response(within: 60) {
            session.request(server.url()).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "ok", "\(String(describing: result?.error))")
        #expect(server.negotiated == ["http/1.1"])
        #expect(server.flooded == 0)
        await server.stop()
    }

    @Test func theOverrideLeavesHTTP2ToTheCaller() {
        let base = HTTPClient.Configuration()
        #expect(ClientSetup.transportConfiguration(from: base, negotiatesHTTP2: false).httpVersion == .http1Only)
        #expect(ClientSetup.transportConfiguration(from: base, negotiatesHTTP2: true).httpVersion == base.httpVersion)
    }

    /// A trust-evaluated host's client is built from the caller's
    /// configuration, the overrides applied once: one closing handler a
    /// connection, not one per application.
    @Test func anEvaluatedHostsConnectionGetsOneClosingHandler() async throws {
        let setup = ClientSetup(
            configuration: HTTPClient.Configuration(), negotiatesHTTP2: true, eventLoopGroup: MultiThreadedEventLoopGroup.singleton
        )
        let initializer = try #require(setup.evaluatedHostsConfiguration.http2ConnectionDebugInitializer)
        let channel = EmbeddedChannel()
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(NIOHTTP2Handler(mode: .client))
        try await initializer(channel).get()
        try await pipeline.removeHandler(try pipeline.handler(type: HTTP2ConnectionErrorClose.self)).get()
        #expect(throws: (any Error).self, "a second handler") { try pipeline.handler(type: HTTP2ConnectionErrorClose.self) }
        try await setup.client.shutdown()
    }
}

/// The frame reading behind ``HTTP2ConnectionErrorClose``.
@Suite("HTTP2FrameScanner: a GOAWAY with an error code, however the bytes are cut")
struct HTTP2FrameScannerTests {
    static func frame(type: UInt8, stream: UInt32 = 0, payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, 0]
            + withUnsafeBytes(of: stream.bigEndian, Array.init) + payload
    }

    static func goAway(code: UInt32, debug: [UInt8] = []) -> [UInt8] {
        frame(type: 0x7, payload: [0, 0, 0, 1] + withUnsafeBytes(of: code.bigEndian, Array.init) + debug)
    }

    /// Feeds `bytes` in pieces of `size`; the index of the piece that flagged, if any.
    static func flag(_ bytes: [UInt8], pieces size: Int) -> Int? {
        var scanner = HTTP2FrameScanner()
        var piece = 0
        for start in stride(from: 0, to: bytes.count, by: size) {
            let flagged = bytes[start..<min(start + size, bytes.count)].withUnsafeBytes { scanner.scan($0) }
            if flagged { return piece }
            piece += 1
        }
        return nil
    }

    static var traffic: [UInt8] {
        frame(type: 0x4, payload: [])
            + frame(type: 0x1, stream: 1, payload: Array(repeating: 0x88, count: 300))
            + frame(type: 0x0, stream: 1, payload: Array(repeating: 0x7, count: 1000))
            + frame(type: 0x6, payload: Array(repeating: 0, count: 8))
    }

    @Test(arguments: [1, 2, 5, 9, 13, 64, 4096])
    func aGoAwayWithAnErrorIsFoundWhereverTheWritesSplitIt(_ size: Int) {
        let bytes = Self.traffic + Self.goAway(code: 0x1, debug: Array("bad".utf8))
        let flagged = Self.flag(bytes, pieces: size)
        // Flagged in the piece holding the error code's last byte.
        #expect(flagged == (Self.traffic.count + 9 + 8 - 1) / size)
    }

    @Test(arguments: [1, 7, 4096])
    func noGoAwayOrACleanOneIsNotAnError(_ size: Int) {
        #expect(Self.flag(Self.traffic, pieces: size) == nil)
        #expect(Self.flag(Self.traffic + Self.goAway(code: 0) + Self.traffic, pieces: size) == nil)
    }

    /// A GOAWAY's bytes inside another frame's payload are payload.
    @Test func bytesInsideAPayloadAreNotFrames() {
        let hidden = Self.frame(type: 0x0, stream: 1, payload: Self.goAway(code: 0x2))
        #expect(Self.flag(hidden + Self.traffic, pieces: 3) == nil)
        #expect(Self.flag(hidden + Self.goAway(code: 0xB), pieces: 3) != nil)
    }
}
