import NIOCore
import NIOHTTP2

/// Closes an HTTP/2 connection once the client has declared it broken: a
/// `GOAWAY` with an error code (RFC 9113 §5.4.1: after a connection error
/// the endpoint sends `GOAWAY` and closes the TCP connection).
///
/// SwiftNIO's HTTP/2 handler sends that `GOAWAY` and leaves the closing to
/// its user; AsyncHTTPClient does not close. The connection then stayed
/// open with its streams waiting for their timeout, and a server that went
/// on sending (endless `CONTINUATION`, `PING` or `SETTINGS` frames) grew
/// the process without bound: the handler stops parsing, and what arrives
/// is kept. Closed, the connection fails its streams at once.
///
/// It sits between TLS and the HTTP/2 handler and reads only the frame
/// headers of what goes out; it is added when the connection is ready
/// (AsyncHTTPClient's `http2ConnectionDebugInitializer`), at a frame boundary.
final class HTTP2ConnectionErrorClose: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private var scanner = HTTP2FrameScanner()
    private var closing = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !closing {
            switch unwrapOutboundIn(data) {
            case .byteBuffer(let buffer):
                closing = buffer.withUnsafeReadableBytes { scanner.scan($0) }
            case .fileRegion(let region):
                scanner.skip(region.readableBytes)
            }
            if closing {
                context.write(data, promise: promise)
                context.flush()
                // Not inside the HTTP/2 handler's read that wrote the GOAWAY.
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.eventLoop.execute { bound.value.close(promise: nil) }
                return
            }
        }
        context.write(data, promise: promise)
    }

    /// Adds the handler in front of `channel`'s HTTP/2 handler.
    static func install(on channel: any Channel) -> EventLoopFuture<Void> {
        guard channel.eventLoop.inEventLoop else { return channel.eventLoop.submit { try add(to: channel) } }
        return channel.eventLoop.makeCompletedFuture { try add(to: channel) }
    }

    private static func add(to channel: any Channel) throws {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(HTTP2ConnectionErrorClose(), position: .before(pipeline.handler(type: NIOHTTP2Handler.self)))
    }
}

/// Follows the frames in an HTTP/2 byte stream from a frame boundary,
/// reading each 9-byte header and skipping payloads, to spot a `GOAWAY`
/// whose error code is not `NO_ERROR`.
struct HTTP2FrameScanner {
    /// The header read so far (up to 9 bytes), or a GOAWAY's first 8 payload bytes.
    private var pending: [UInt8] = []
    private var phase = Phase.header
    /// Payload bytes of the current frame still to skip.
    private var remaining = 0

    private enum Phase {
        case header
        /// In a GOAWAY's payload: reading its last-stream-ID and error code.
        case goAway
        case payload
    }

    static let goAwayType: UInt8 = 0x7

    /// Reads `bytes`; `true` once a GOAWAY with an error code is complete.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            switch phase {
            case .header:
                let take = min(9 - pending.count, bytes.count - index)
                pending.append(contentsOf: bytes[index..<index + take])
                index += take
                guard pending.count == 9 else { continue }
                remaining = Int(pending[0]) << 16 | Int(pending[1]) << 8 | Int(pending[2])
                let type = pending[3]
                pending.removeAll(keepingCapacity: true)
                phase = type == Self.goAwayType && remaining >= 8 ? .goAway : .payload
            case .goAway:
                let take = min(8 - pending.count, bytes.count - index)
                pending.append(contentsOf: bytes[index..<index + take])
                index += take
                remaining -= take
                guard pending.count == 8 else { continue }
                let code = pending[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
                pending.removeAll(keepingCapacity: true)
                if code != 0 { return true }
                phase = .payload
            case .payload:
                let take = min(remaining, bytes.count - index)
                index += take
                remaining -= take
            }
            if phase == .payload, remaining == 0 { phase = .header }
        }
        return false
    }

    /// Skips `count` bytes that are a payload's (a file region: only a DATA frame's).
    mutating func skip(_ count: Int) {
        guard phase == .payload else {
            // Not where a file region can be: stop reading rather than misread.
            phase = .payload
            remaining = .max
            return
        }
        remaining = max(0, remaining - count)
        if remaining == 0 { phase = .header }
    }
}
