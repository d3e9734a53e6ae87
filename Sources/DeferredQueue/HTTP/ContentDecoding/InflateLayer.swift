import CDeferredQueueZlib
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One `gzip` or `deflate` layer of a ``ContentDecoder``: a zlib stream that
/// inflates at most the bytes asked for per call, whatever its input holds.
///
/// Not thread-safe: its decoder calls it under its lock.
final class InflateLayer {
    enum Coding { case gzip, deflate }

    private let coding: Coding
    private let stream: UnsafeMutablePointer<z_stream>
    private var isInitialized = false
    /// Compressed bytes not inflated yet, from `inputOffset` on.
    private var input = Data()
    private var inputOffset = 0
    /// The stream reached its end (more input then starts another gzip member).
    private(set) var ended = false
    /// The last ``inflate(upTo:)`` consumed input.
    private(set) var progressed = false

    init(_ coding: Coding) {
        self.coding = coding
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if isInitialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Whether every byte fed so far was inflated.
    var needsInput: Bool { inputOffset >= input.count }

    func feed(_ bytes: Data) {
        guard !bytes.isEmpty else { return }
        if needsInput {
            input = bytes
            inputOffset = 0
        } else {
            input.append(bytes)
        }
    }

    /// Inflates up to `maximum` bytes from the input fed so far; empty when
    /// it needs more input.
    ///
    /// - Throws: `URLError.cannotDecodeContentData` for corrupt input.
    func inflate(upTo maximum: Int) throws -> Data {
        progressed = false
        guard !needsInput, maximum > 0 else { return Data() }
        if !isInitialized {
            // A `deflate` body is meant to be zlib-wrapped, but servers send
            // raw deflate too: the zlib header tells them apart.
            guard coding == .gzip || input.count - inputOffset >= 2 else { return Data() }
            let bits: Int32 = coding == .gzip ? 15 + 16 : (Self.isZlibHeader(input, at: inputOffset) ? 15 : -15)
            guard cdq_inflateInit2(stream, bits) == Z_OK else { throw Self.corrupt("could not start zlib") }
            isInitialized = true
        }
        var output = Data(count: maximum)
        let total = input.count - inputOffset
        let (produced, consumed) = try output.withUnsafeMutableBytes { out -> (Int, Int) in
            try input.withUnsafeMutableBytes { raw -> (Int, Int) in
                guard let source = raw.baseAddress?.assumingMemoryBound(to: Bytef.self),
                      let target = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                else { return (0, 0) }
                stream.pointee.next_in = source + inputOffset
                stream.pointee.avail_in = uInt(total)
                stream.pointee.next_out = target
                stream.pointee.avail_out = uInt(maximum)
                defer { (stream.pointee.next_in, stream.pointee.next_out) = (nil, nil) }
                while stream.pointee.avail_out > 0 && stream.pointee.avail_in > 0 {
                    if ended {
                        // More after the end: the next member of a multi-member gzip body.
                        guard coding == .gzip, inflateReset(stream) == Z_OK else { throw Self.corrupt("data after the end of the stream") }
                        ended = false
                    }
                    let status = CDeferredQueueZlib.inflate(stream, Z_NO_FLUSH)
                    if status == Z_STREAM_END {
                        ended = true
                    } else if status != Z_OK {
                        throw Self.corrupt("zlib error \(status)")
                    }
                }
                return (maximum - Int(stream.pointee.avail_out), total - Int(stream.pointee.avail_in))
            }
        }
        inputOffset += consumed
        progressed = consumed > 0
        if needsInput { (input, inputOffset) = (Data(), 0) }
        output.count = produced
        return output
    }

    /// Whether the two bytes at `offset` are a zlib header (RFC 1950: deflate, and a check that divides by 31).
    private static func isZlibHeader(_ data: Data, at offset: Int) -> Bool {
        let first = data[data.startIndex + offset]
        let second = data[data.startIndex + offset + 1]
        return first & 0x0F == 8 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
    }

    static func corrupt(_ reason: String) -> URLError {
        URLError(.cannotDecodeContentData, userInfo: [NSLocalizedDescriptionKey: "The compressed response body is corrupt: \(reason)."])
    }
}
