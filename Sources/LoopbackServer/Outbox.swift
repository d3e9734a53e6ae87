import Foundation

/// Bytes queued for one socket, written in order as the socket accepts them.
///
/// A non-blocking `send` may take only part of a buffer; the rest waits here
/// until the connection's write source says the socket is writable again.
struct Outbox: Sendable {
    /// What a ``write(to:)`` achieved.
    enum Progress {
        /// Everything queued was written.
        case drained
        /// The socket is full; wait for it to become writable.
        case blocked
        /// The peer is gone or the socket failed.
        case failed
    }

    private var chunks: [Data] = []
    /// How much of `chunks[0]` was already written.
    private var offset = 0
    /// How many bytes wait to be written.
    private(set) var byteCount = 0

    /// Whether nothing is waiting to be written.
    var isEmpty: Bool { chunks.isEmpty }

    /// Queues bytes behind anything already waiting.
    mutating func append(_ bytes: Data) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        byteCount += bytes.count
    }

    /// Drops everything queued (the connection is closing).
    mutating func removeAll() {
        chunks.removeAll()
        offset = 0
        byteCount = 0
    }

    /// Writes as much as the socket takes now.
    mutating func write(to fd: Int32) -> Progress {
        while let chunk = chunks.first {
            let result = chunk.withUnsafeBytes { bytes in
                Socket.send(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            }
            switch result {
            case .transferred(0):
                return .blocked
            case .transferred(let count):
                offset += count
                byteCount -= count
                if offset >= chunk.count {
                    chunks.removeFirst()
                    offset = 0
                }
            case .wouldBlock:
                return .blocked
            case .endOfFile, .failed:
                return .failed
            }
        }
        return .drained
    }
}
