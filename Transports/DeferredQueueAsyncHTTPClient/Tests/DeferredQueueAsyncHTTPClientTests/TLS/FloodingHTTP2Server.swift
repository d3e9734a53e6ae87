import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// An HTTPS server on 127.0.0.1 that offers HTTP/2 by ALPN and, over it,
/// answers a request with endless frames (``Flood``) until the client
/// closes the connection or `limit` bytes went out. A client that
/// negotiates HTTP/1.1 gets `200 ok`.
final class FloodingHTTP2Server: Sendable {
    enum Flood: Sendable, CaseIterable {
        /// A `HEADERS` frame that never ends its block, then `CONTINUATION` frames.
        case continuation
        /// `PING` frames.
        case ping
    }

    let port: Int
    private let channel: any Channel
    private let record: Record

    /// What the server saw; its one lock is `state`.
    final class Record: Sendable {
        struct State {
            var protocols: [String] = []
            var flooded = 0
            var closedByClient = 0
        }

        let state = Mutex(State())
    }

    /// The protocol each connection negotiated (`"h2"`, `"http/1.1"`).
    var negotiated: [String] { record.state.withLock { $0.protocols } }
    /// Connections the server flooded.
    var flooded: Int { record.state.withLock { $0.flooded } }
    /// Flooded connections that ended before the server stopped sending.
    var closedByClient: Int { record.state.withLock { $0.closedByClient } }

    init(identity: TestCertificates.Identity, flood: Flood = .continuation, limit: Int = 1 << 30) async throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(identity.certificate)], privateKey: .privateKey(identity.key)
        )
        configuration.applicationProtocols = ["h2", "http/1.1"]
        let context = try NIOSSLContext(configuration: configuration)
        let record = Record()
        self.record = record
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(Flooder(record: record, flood: flood, limit: limit))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    func url(_ path: String = "/") -> URL {
        URL(string: "https://127.0.0.1:\(port)\(path)")!
    }

    func stop() async {
        try? await channel.close()
    }
}

private final class Flooder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let record: FloodingHTTP2Server.Record
    private let flood: FloodingHTTP2Server.Flood
    private let limit: Int
    private var negotiated: String?
    private var received = ByteBuffer()
    private var prefaceRead = false
    private var sent = 0
    private var flooding = false
    private var stopped = false

    init(record: FloodingHTTP2Server.Record, flood: FloodingHTTP2Server.Flood, limit: Int) {
        self.record = record
        self.flood = flood
        self.limit = limit
    }

    /// One frame: a 9-byte header, then `payload`.
    private static func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags]
            + withUnsafeBytes(of: stream.bigEndian, Array.init) + payload
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiatedProtocol) = event as? TLSUserEvent {
            negotiated = negotiatedProtocol
            record.state.withLock { $0.protocols.append(negotiatedProtocol ?? "none") }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard negotiated == "h2" else {
            let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response))).whenComplete { _ in
                bound.value.close(promise: nil)
            }
            return
        }
        received.writeBuffer(&buffer)
        if !prefaceRead {
            guard received.readableBytes >= 24 else { return }
            received.moveReaderIndex(forwardBy: 24)
            prefaceRead = true
            // Our SETTINGS (none), and the acknowledgement of the client's.
            let settings = Self.frame(type: 0x4, flags: 0, stream: 0, payload: [])
                + Self.frame(type: 0x4, flags: 0x1, stream: 0, payload: [])
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: settings)), promise: nil)
        }
        // The first HEADERS frame: the request.
        while !flooding, received.readableBytes >= 9,
              let length = received.getInteger(at: received.readerIndex, as: UInt32.self).map({ Int($0 >> 8) }),
              received.readableBytes >= 9 + length {
            let type = received.getInteger(at: received.readerIndex + 3, as: UInt8.self)
            received.moveReaderIndex(forwardBy: 9 + length)
            if type == 0x1 { startFlood(context: context) }
        }
        received.discardReadBytes()
    }

    private func startFlood(context: ChannelHandlerContext) {
        flooding = true
        record.state.withLock { $0.flooded += 1 }
        if flood == .continuation {
            // `:status: 200` (static table index 8), without END_HEADERS.
            let headers = Self.frame(type: 0x1, flags: 0, stream: 1, payload: [0x88])
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: headers)), promise: nil)
        }
        floodOnce(context: context)
    }

    /// One frame of the flood.
    private var floodFrame: [UInt8] {
        switch flood {
        case .continuation:
            // 4 KiB of `x-a: b` fields.
            let field: [UInt8] = [0x40, 0x03, 0x78, 0x2D, 0x61, 0x01, 0x62]
            return Self.frame(type: 0x9, flags: 0, stream: 1, payload: Array([[UInt8]](repeating: field, count: 4096 / field.count).joined()))
        case .ping:
            return Self.frame(type: 0x6, flags: 0, stream: 0, payload: Array(repeating: 0, count: 8))
        }
    }

    /// 64 KiB or so of frames, then again once they went out.
    private func floodOnce(context: ChannelHandlerContext) {
        guard !stopped, context.channel.isActive else { return }
        let frame = floodFrame
        let count = max(16, (64 << 10) / frame.count)
        var buffer = context.channel.allocator.buffer(capacity: frame.count * count)
        for _ in 0..<count { buffer.writeBytes(frame) }
        sent += buffer.readableBytes
        if sent >= limit {
            stopped = true
            return
        }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { result in
            guard case .success = result else { return }
            bound.value.1.eventLoop.execute { bound.value.0.floodOnce(context: bound.value.1) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if flooding, !stopped { record.state.withLock { $0.closedByClient += 1 } }
        stopped = true
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
