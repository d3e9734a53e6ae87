import Foundation

/// A gzip stream (RFC 1952) of ``GeneratedContent``, made piece by piece with
/// a deflate encoder (RFC 1951) that knows only what it needs.
///
/// The content repeats with a short period (1 byte, or 251 for the pattern),
/// so one fixed-Huffman block does it: the first period as literals, then
/// back-references of length 258 at distance `period`, a shorter last one (or
/// up to two literals), end of block. The CRC-32 of the decoded bytes comes
/// from ``CRC32/checksum(repeating:length:)`` without producing them, and the
/// compressed length is known up front, so the reply can carry `Content-Length`.
struct GzipProducer: BodyProducer {
    let content: GeneratedContent
    let decodedLength: Int64
    /// The exact number of bytes this producer yields.
    let compressedLength: Int64

    private let period: Int64
    private let literalCount: Int64
    private let fullMatches: Int64
    /// Decoded bytes after the full matches.
    private let tail: Int64
    private let crc: UInt32

    private enum Stage { case header, matches, tail, trailer, done }
    private var stage = Stage.header
    private var matchesLeft: Int64
    private var bits = BitWriter()

    init(content: GeneratedContent, decodedLength: Int64) {
        let length = max(0, decodedLength)
        self.content = content
        self.decodedLength = length
        let period: Int64 = content == .pattern ? Int64(GeneratedContent.patternPeriod) : 1
        self.period = period
        literalCount = min(length, period)
        fullMatches = (length - literalCount) / 258
        tail = (length - literalCount) % 258
        matchesLeft = fullMatches
        let unit = [UInt8](content.bytes(in: 0..<period))
        crc = CRC32.checksum(repeating: unit, length: length)
        var bitCount: Int64 = 3 + 7  // block header, end of block
        for offset in 0..<literalCount { bitCount += Int64(Self.literal(content.byte(at: offset)).count) }
        bitCount += fullMatches * Int64(Self.match(length: 258, distance: Int(period)).count)
        if tail >= 3 {
            bitCount += Int64(Self.match(length: Int(tail), distance: Int(period)).count)
        } else {
            for offset in (length - tail)..<length { bitCount += Int64(Self.literal(content.byte(at: offset)).count) }
        }
        compressedLength = 10 + (bitCount + 7) / 8 + 8
    }

    var isFinished: Bool { stage == .done && bits.output.isEmpty }

    mutating func next(limit: Int) -> Data? {
        while bits.output.count < limit && stage != .done {
            switch stage {
            case .header:
                // Magic, deflate, no flags, no time, no extra flags, OS unknown.
                bits.output += [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
                bits.write(0b011, count: 3)  // last block, fixed Huffman codes
                for offset in 0..<literalCount { bits.write(Self.literal(content.byte(at: offset))) }
                stage = .matches
            case .matches:
                let match = Self.match(length: 258, distance: Int(period))
                while matchesLeft > 0 && bits.output.count < limit {
                    bits.write(match)
                    matchesLeft -= 1
                }
                if matchesLeft == 0 { stage = .tail }
            case .tail:
                if tail >= 3 {
                    bits.write(Self.match(length: Int(tail), distance: Int(period)))
                } else {
                    for offset in (decodedLength - tail)..<decodedLength { bits.write(Self.literal(content.byte(at: offset))) }
                }
                bits.write(0, count: 7)  // end of block (symbol 256)
                bits.flush()
                stage = .trailer
            case .trailer:
                let size = UInt32(truncatingIfNeeded: decodedLength)
                for value in [crc, size] {
                    bits.output += (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
                }
                stage = .done
            case .done:
                break
            }
        }
        guard !bits.output.isEmpty else { return nil }
        let count = min(limit, bits.output.count)
        defer { bits.output.removeFirst(count) }
        return Data(bits.output[..<count])
    }

    // MARK: - Fixed Huffman codes (RFC 1951 §3.2.6)

    /// A code ready for the bit writer: Huffman bits reversed (they go out most significant first), extra bits after.
    struct Code {
        var bits: UInt32
        var count: Int
    }

    private static func huffman(_ code: UInt32, _ count: Int) -> Code {
        var reversed: UInt32 = 0
        for index in 0..<count where code & (1 << index) != 0 { reversed |= 1 << (count - 1 - index) }
        return Code(bits: reversed, count: count)
    }

    static func literal(_ byte: UInt8) -> Code {
        byte < 144 ? huffman(0x30 + UInt32(byte), 8) : huffman(0x190 + UInt32(byte) - 144, 9)
    }

    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                      35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let distanceBases = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257]

    /// A back-reference; `length` in 3...258, `distance` in 1...256.
    static func match(length: Int, distance: Int) -> Code {
        let lengthIndex = (lengthBases.lastIndex { $0 <= length }) ?? 0
        let lengthExtra = lengthIndex == 28 ? 0 : max(0, (lengthIndex - 4) / 4)
        let symbol = 257 + lengthIndex
        var code = symbol < 280 ? huffman(UInt32(symbol - 256), 7) : huffman(UInt32(0xC0 + symbol - 280), 8)
        code.bits |= UInt32(length - lengthBases[lengthIndex]) << code.count
        code.count += lengthExtra
        let distanceIndex = (distanceBases.lastIndex { $0 <= distance }) ?? 0
        let distanceExtra = max(0, (distanceIndex - 2) / 2)
        let distanceCode = huffman(UInt32(distanceIndex), 5)
        code.bits |= distanceCode.bits << code.count
        code.count += 5
        code.bits |= UInt32(distance - distanceBases[distanceIndex]) << code.count
        code.count += distanceExtra
        return code
    }
}

/// Packs bit fields least significant bit first into bytes (the deflate order).
private struct BitWriter {
    var output: [UInt8] = []
    private var pending: UInt64 = 0
    private var pendingCount = 0

    mutating func write(_ code: GzipProducer.Code) {
        write(code.bits, count: code.count)
    }

    mutating func write(_ value: UInt32, count: Int) {
        pending |= UInt64(value) << pendingCount
        pendingCount += count
        while pendingCount >= 8 {
            output.append(UInt8(truncatingIfNeeded: pending))
            pending >>= 8
            pendingCount -= 8
        }
    }

    /// Pads the last byte with zero bits.
    mutating func flush() {
        if pendingCount > 0 { output.append(UInt8(truncatingIfNeeded: pending)) }
        pending = 0
        pendingCount = 0
    }
}
