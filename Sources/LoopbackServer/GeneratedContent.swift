import Foundation

/// The bytes of a body the server makes up as it sends it (``Reply/generated(status:headers:length:content:chunked:chunkSize:interval:)``
/// and ``Reply/gzip(status:headers:decodedLength:content:chunked:chunkSize:interval:)``).
///
/// The content is a pure function of the byte offset, so a client can check
/// what it received piece by piece, without keeping it:
///
/// ```swift
/// var offset: Int64 = 0
/// for try await piece in pieces {
///     #expect(GeneratedContent.pattern.firstMismatch(in: piece, startingAt: offset) == nil)
///     offset += Int64(piece.count)
/// }
/// ```
public enum GeneratedContent: Sendable, Equatable {
    /// Byte `i` is `UInt8(i % 251)`: the prime period makes a dropped,
    /// repeated or reordered block show up as a mismatch.
    case pattern
    /// Every byte is this one.
    case repeating(UInt8)

    /// The period of ``pattern``.
    public static let patternPeriod = 251

    /// Two periods and a bit of the pattern, so any window of up to `tableSpan` bytes is one copy.
    private static let table: [UInt8] = (0..<(patternPeriod * 262)).map { UInt8(truncatingIfNeeded: $0 % patternPeriod) }
    private static let tableSpan = patternPeriod * 261

    /// The byte at `offset` (a negative offset is treated as 0).
    /// - Parameter offset: the position in the body, from 0.
    /// - Returns: the byte there.
    public func byte(at offset: Int64) -> UInt8 {
        switch self {
        case .pattern: UInt8(truncatingIfNeeded: max(0, offset) % Int64(Self.patternPeriod))
        case .repeating(let byte): byte
        }
    }

    /// The bytes at `range` of the body (an empty `Data` for an empty or negative range).
    /// - Parameter range: offsets from 0.
    /// - Returns: `range.count` bytes.
    public func bytes(in range: Range<Int64>) -> Data {
        let lower = max(0, range.lowerBound)
        let count = Int(max(0, range.upperBound - lower))
        guard count > 0 else { return Data() }
        switch self {
        case .repeating(let byte):
            return Data(repeating: byte, count: count)
        case .pattern:
            var data = Data(count: count)
            data.withUnsafeMutableBytes { buffer in
                Self.table.withUnsafeBytes { table in
                    guard let target = buffer.baseAddress, let source = table.baseAddress else { return }
                    var written = 0
                    var phase = Int(lower % Int64(Self.patternPeriod))
                    while written < count {
                        let step = min(count - written, Self.tableSpan)
                        (target + written).copyMemory(from: source + phase, byteCount: step)
                        written += step
                        phase = (phase + step) % Self.patternPeriod
                    }
                }
            }
            return data
        }
    }

    /// Where `bytes`, read from the body at `offset`, first differ from the content.
    /// - Parameters:
    ///   - bytes: a piece of a received body.
    ///   - offset: the body offset of `bytes.first`.
    /// - Returns: the body offset of the first wrong byte, or `nil` when all are right.
    public func firstMismatch(in bytes: UnsafeRawBufferPointer, startingAt offset: Int64) -> Int64? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        var checked = 0
        while checked < bytes.count {
            let step = min(bytes.count - checked, Self.tableSpan)
            let expected = self.bytes(in: (offset + Int64(checked))..<(offset + Int64(checked + step)))
            let equal = expected.withUnsafeBytes { wanted in
                wanted.baseAddress.map { memcmp(base + checked, $0, step) == 0 } ?? false
            }
            if !equal {
                for index in 0..<step where base.load(fromByteOffset: checked + index, as: UInt8.self)
                    != byte(at: offset + Int64(checked + index)) {
                    return offset + Int64(checked + index)
                }
            }
            checked += step
        }
        return nil
    }

    /// Where `bytes`, read from the body at `offset`, first differ from the content.
    /// - Parameters:
    ///   - bytes: a piece of a received body.
    ///   - offset: the body offset of `bytes.first`.
    /// - Returns: the body offset of the first wrong byte, or `nil` when all are right.
    public func firstMismatch(in bytes: Data, startingAt offset: Int64) -> Int64? {
        bytes.withUnsafeBytes { firstMismatch(in: $0, startingAt: offset) }
    }
}
