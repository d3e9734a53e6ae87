import Foundation

/// Makes a body piece by piece, as the connection asks for it.
protocol BodyProducer: Sendable {
    /// The next piece of at most `limit` bytes (at least 1), or `nil` when the body is complete.
    mutating func next(limit: Int) -> Data?
    /// Whether every byte was produced (the next call returns `nil`).
    var isFinished: Bool { get }
}

/// A body produced lazily while the client reads (``ReplyStep/stream(_:)``).
///
/// The connection asks for the next piece only when its outbox holds less than
/// ``Connection/streamHighWater`` bytes, so a reply of any size occupies at
/// most that plus one piece of memory.
struct BodyStream: Sendable {
    /// The largest piece, so queued bytes stay under 1 MiB per connection.
    static let largestPiece = 512 * 1024

    private var producer: any BodyProducer
    private let chunked: Bool
    private let pieceSize: Int
    /// The pause after each piece, in seconds (0 for none).
    let interval: Double
    private var ended = false

    /// - Parameters:
    ///   - producer: makes the body bytes.
    ///   - chunked: frame each piece as a chunk and end with the last-chunk.
    ///   - pieceSize: bytes per piece, clamped to `1...largestPiece`.
    ///   - interval: seconds to wait after each piece.
    init(_ producer: any BodyProducer, chunked: Bool, pieceSize: Int, interval: Double) {
        self.producer = producer
        self.chunked = chunked
        self.pieceSize = min(max(1, pieceSize), Self.largestPiece)
        self.interval = interval > 0 ? min(interval, ReplyPlan.longestWait) : 0
    }

    /// Whether the last piece was returned; no pause follows it.
    var isComplete: Bool { ended }

    /// The next bytes to write (framed when chunked, the last chunk carrying the
    /// terminating empty chunk), or `nil` when the body is complete.
    mutating func next() -> Data? {
        guard !ended else { return nil }
        guard let piece = producer.next(limit: pieceSize), !piece.isEmpty else {
            ended = true
            return chunked ? Data("0\r\n\r\n".utf8) : nil
        }
        ended = producer.isFinished
        guard chunked else { return piece }
        let framed = Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8)
        return ended ? framed + Data("0\r\n\r\n".utf8) : framed
    }
}

/// Produces ``GeneratedContent`` up to a length.
struct GeneratedProducer: BodyProducer {
    let content: GeneratedContent
    let length: Int64
    private var offset: Int64 = 0

    init(content: GeneratedContent, length: Int64) {
        self.content = content
        self.length = max(0, length)
    }

    var isFinished: Bool { offset >= length }

    mutating func next(limit: Int) -> Data? {
        guard offset < length else { return nil }
        let end = min(length, offset + Int64(limit))
        defer { offset = end }
        return content.bytes(in: offset..<end)
    }
}
