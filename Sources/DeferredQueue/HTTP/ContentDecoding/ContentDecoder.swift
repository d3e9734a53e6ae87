import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Decodes a response body from its `Content-Encoding` (`gzip`, `deflate`,
/// nested or not) a bounded step at a time, for transports that leave
/// decoding to the library.
///
/// A decoder never inflates more than it is asked for: a compression bomb
/// (a megabyte that decodes to gigabytes, or the same under several layers
/// of `gzip`) costs at most one step's output and a 32 KiB window per
/// layer, so whoever reads the body — a limit check, a file, a stream —
/// can stop it in time:
///
/// ```swift
/// let decoder = try ContentDecoder(contentEncoding: head.value(forHTTPHeaderField: "Content-Encoding"))
/// decoder?.feed(compressedBytes)
/// while let piece = try decoder?.read(upTo: 1 << 20) { consume(piece) }
/// // after the last bytes: try decoder?.finish()
/// ```
///
/// Thread-safe; meant for one body read in order.
public final class ContentDecoder: Sendable {
    /// The content codings a decoder undoes, as an `Accept-Encoding` value.
    public static let acceptEncoding = "gzip, deflate"

    /// The most codings one body may stack: more is refused rather than
    /// given a zlib stream each.
    public static let maximumLayers = 5

    /// The layers in decoding order (the last coding applied first), behind the decoder's one lock.
    private let layers: Mutex<[InflateLayer]>

    /// Creates a decoder for a `Content-Encoding` value, or returns `nil`
    /// when the body is not encoded (no header, or only `identity`).
    ///
    /// - Parameter contentEncoding: The response's `Content-Encoding` value.
    /// - Throws: `URLError.cannotDecodeContentData` for a coding other than
    ///   `gzip`, `x-gzip`, `deflate` and `identity`, or more than ``maximumLayers``.
    public init?(contentEncoding: String?) throws {
        var codings: [InflateLayer.Coding] = []
        for token in (contentEncoding ?? "").split(separator: ",") {
            switch token.trimmingCharacters(in: .whitespaces).lowercased() {
            case "", "identity": continue
            case "gzip", "x-gzip": codings.append(.gzip)
            case "deflate": codings.append(.deflate)
            case let other:
                throw InflateLayer.corrupt("the content coding \"\(other)\" is not supported (only \(Self.acceptEncoding))")
            }
        }
        guard !codings.isEmpty else { return nil }
        guard codings.count <= Self.maximumLayers else {
            throw InflateLayer.corrupt("more than \(Self.maximumLayers) content codings")
        }
        layers = Mutex(codings.reversed().map(InflateLayer.init))
    }

    /// Adds the next bytes of the encoded body.
    ///
    /// - Parameter bytes: Bytes as they came off the wire.
    public func feed(_ bytes: Data) {
        layers.withLock { $0.first?.feed(bytes) }
    }

    /// The next decoded bytes, at most `maximum` of them; `nil` once
    /// everything fed so far is decoded.
    ///
    /// - Parameter maximum: The most bytes to return.
    /// - Returns: Between 1 and `maximum` decoded bytes, or `nil` when more input is needed.
    /// - Throws: `URLError.cannotDecodeContentData` for a corrupt body.
    public func read(upTo maximum: Int) throws -> Data? {
        try layers.withLock { layers in try Self.pull(layers, layers.count - 1, maximum) }
    }

    /// Checks that the body ended where its encoding ends (call after the
    /// last bytes were fed and ``read(upTo:)`` returned `nil`).
    ///
    /// - Throws: `URLError.cannotDecodeContentData` for a body cut short.
    public func finish() throws {
        let complete = layers.withLock { $0.allSatisfy { $0.ended && $0.needsInput } }
        if !complete { throw InflateLayer.corrupt("it ends before its encoding does") }
    }

    /// Up to `maximum` bytes decoded by layer `index`, pulling input from the
    /// layer before it a step at a time; `nil` when the wire input is used up.
    private static func pull(_ layers: [InflateLayer], _ index: Int, _ maximum: Int) throws -> Data? {
        let layer = layers[index]
        while true {
            let output = try layer.inflate(upTo: maximum)
            if !output.isEmpty { return output }
            // Input consumed without output yet (a header): go on.
            if !layer.needsInput && layer.progressed { continue }
            guard index > 0, let more = try pull(layers, index - 1, stepSize) else { return nil }
            layer.feed(more)
        }
    }

    /// How much an inner layer decodes per step for the next.
    private static let stepSize = 64 << 10
}
