import Foundation

/// A gzip member (RFC 1952) around another producer's bytes, in stored
/// (uncompressed) deflate blocks: one more layer of `Content-Encoding: gzip`
/// for ``Reply/nestedGzip(layers:decodedLength:content:)``.
///
/// Stored blocks cost five bytes each and need no compressor, and the CRC-32
/// is computed as the inner bytes go by, so a layer adds almost nothing to
/// the wire size and nothing to the server's memory.
struct StoredGzipProducer: BodyProducer {
    private var inner: any BodyProducer
    private var crc: UInt32 = 0
    private var size: UInt32 = 0
    private var pending = Data()
    private enum Stage { case header, blocks, done }
    private var stage = Stage.header

    /// The largest stored block (its length field has 16 bits).
    private static let largestBlock = 65_535

    init(wrapping inner: any BodyProducer) {
        self.inner = inner
    }

    var isFinished: Bool { stage == .done && pending.isEmpty }

    mutating func next(limit: Int) -> Data? {
        while pending.count < limit && stage != .done {
            switch stage {
            case .header:
                // Magic, deflate, no flags, no time, no extra flags, OS unknown.
                pending.append(contentsOf: [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
                stage = .blocks
            case .blocks:
                guard let piece = inner.next(limit: Self.largestBlock), !piece.isEmpty else {
                    // A last, empty stored block, then the CRC and length of the inner bytes.
                    pending.append(contentsOf: [1, 0, 0, 0xFF, 0xFF])
                    for value in [crc, size] { pending.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }) }
                    stage = .done
                    break
                }
                let length = UInt16(piece.count)
                pending.append(contentsOf: [0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)])
                pending.append(piece)
                crc = CRC32.checksum(piece, continuing: crc)
                size &+= UInt32(truncatingIfNeeded: piece.count)
            case .done:
                break
            }
        }
        guard !pending.isEmpty else { return nil }
        let count = min(limit, pending.count)
        defer { pending.removeFirst(count) }
        return Data(pending.prefix(count))
    }
}
