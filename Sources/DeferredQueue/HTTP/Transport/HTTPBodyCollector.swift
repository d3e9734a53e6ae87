import Foundation

/// A collecting attempt's body: a buffer that refuses to grow past its limit.
///
/// Every transport collects through it, so the limit is enforced and reported
/// the same way everywhere: the first chunk that would take the body past
/// ``limit`` throws ``HTTPError/responseTooLarge(limit:)`` and drops what was
/// collected; the transport then stops the transfer at once rather than
/// reading (or inflating) the rest.
public struct HTTPBodyCollector: Sendable {
    /// The most bytes the body may hold.
    public let limit: Int
    /// The body so far.
    public private(set) var body = Data()
    /// Whether a chunk went past ``limit`` (the body is then empty for good).
    public private(set) var exceededLimit = false
    /// Storage was reserved: chunks are copied into it rather than the first adopted.
    private var reserved = false

    /// The largest announced length reserved up front: a lying
    /// `Content-Length` must not make the collector allocate for it.
    static let largestReservation = 16 << 20

    /// Creates a collector.
    ///
    /// - Parameters:
    ///   - limit: The most bytes the body may hold.
    ///   - expectedLength: The length the head announces for an unencoded
    ///     body, if any: storage is reserved for it when it is within the limit.
    public init(limit: Int, expectedLength: Int? = nil) {
        self.limit = max(0, limit)
        if let expectedLength, expectedLength > 0, expectedLength <= min(self.limit, Self.largestReservation) {
            body.reserveCapacity(expectedLength)
            reserved = true
        }
    }

    /// The length of the body a transport hands over, as a response head
    /// announces it: `Content-Length`, unless the body is content-encoded
    /// (`Content-Encoding` present and not `identity`), when it counts the
    /// encoded bytes and transports hand over decoded ones.
    ///
    /// - Parameters:
    ///   - contentLength: The announced length; negative or `nil` for none.
    ///   - contentEncoding: The `Content-Encoding` field, fields joined by
    ///     commas if there are several; `nil` when absent.
    /// - Returns: The decoded length, or `nil` when it is unknown.
    public static func decodedLength(contentLength: Int64?, contentEncoding: String?) -> Int64? {
        guard let contentLength, contentLength >= 0 else { return nil }
        if let contentEncoding, contentEncoding.trimmingCharacters(in: .whitespaces).lowercased() != "identity" { return nil }
        return contentLength
    }

    /// The error once the limit was exceeded, otherwise `nil`.
    public var error: HTTPError? { exceededLimit ? .responseTooLarge(limit: limit) : nil }

    /// Appends a chunk.
    ///
    /// - Throws: ``HTTPError/responseTooLarge(limit:)`` when the body would
    ///   grow past ``limit`` (now or before).
    public mutating func append(_ data: Data) throws(HTTPError) {
        try reserve(data.count)
        if body.isEmpty && !reserved { body = data } else { body.append(data) }
    }

    /// Appends a chunk given as raw bytes (a NIO buffer's readable bytes).
    ///
    /// - Throws: ``HTTPError/responseTooLarge(limit:)`` when the body would
    ///   grow past ``limit`` (now or before).
    public mutating func append(contentsOf bytes: UnsafeRawBufferPointer) throws(HTTPError) {
        try reserve(bytes.count)
        body.append(contentsOf: bytes)
    }

    /// Hands the body over, leaving the collector empty.
    public mutating func take() -> Data {
        defer { body = Data() }
        return body
    }

    private mutating func reserve(_ count: Int) throws(HTTPError) {
        guard !exceededLimit, count <= limit - body.count else {
            exceededLimit = true
            body = Data()
            throw .responseTooLarge(limit: limit)
        }
    }
}
