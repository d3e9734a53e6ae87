/// A second, independent decoder for what ``Reply/gzip`` sends: a gzip member
/// holding fixed-Huffman deflate blocks (the only kind the server writes).
/// Bytewise CRC-32 here, so a mistake in the server's CRC arithmetic shows.
struct FixedInflater {
    enum Failure: Error, Equatable {
        case badHeader, unsupportedBlock(Int), badSymbol(Int), badDistance, truncated, badChecksum, badLength
    }

    /// The decoded bytes of a whole gzip stream.
    static func gunzip(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        guard bytes.count >= 18, bytes[0] == 0x1F, bytes[1] == 0x8B, bytes[2] == 8, bytes[3] == 0 else {
            throw .badHeader
        }
        var reader = BitReader(bytes: bytes, position: 10)
        var output: [UInt8] = []
        var last = false
        while !last {
            last = try reader.bits(1) == 1
            let type = try reader.bits(2)
            guard type == 1 else { throw .unsupportedBlock(type) }
            while true {
                let symbol = try decodeSymbol(&reader)
                if symbol < 256 {
                    output.append(UInt8(symbol))
                } else if symbol == 256 {
                    break
                } else {
                    let index = symbol - 257
                    guard index < lengthBases.count else { throw .badSymbol(symbol) }
                    let length = lengthBases[index] + (try reader.bits(lengthExtra[index]))
                    let distanceCode = try reader.reversedBits(5)
                    guard distanceCode < 30 else { throw .badDistance }
                    let distance = distanceBases[distanceCode] + (try reader.bits(distanceExtra[distanceCode]))
                    guard distance <= output.count else { throw .badDistance }
                    for _ in 0..<length { output.append(output[output.count - distance]) }
                }
            }
        }
        reader.alignToByte()
        let trailer = reader.position
        guard trailer + 8 == bytes.count else { throw .truncated }
        let word = { (at: Int) in (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << ($1 * 8) } }
        guard word(trailer) == crc32(output) else { throw .badChecksum }
        guard word(trailer + 4) == UInt32(truncatingIfNeeded: output.count) else { throw .badLength }
        return output
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Fixed literal/length codes (RFC 1951 §3.2.6), read most significant bit first.
    private static func decodeSymbol(_ reader: inout BitReader) throws(Failure) -> Int {
        var code = try reader.reversedBits(7)
        if code <= 0b001_0111 { return 256 + code }
        code = code << 1 | (try reader.bits(1))
        if (0x30...0xBF).contains(code) { return code - 0x30 }
        if (0xC0...0xC7).contains(code) { return 280 + code - 0xC0 }
        code = code << 1 | (try reader.bits(1))
        if (0x190...0x1FF).contains(code) { return 144 + code - 0x190 }
        throw .badSymbol(code)
    }

    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                      35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                      3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBases = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                        257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                        7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private struct BitReader {
        let bytes: [UInt8]
        var position: Int
        var bit = 0

        /// `count` bits, least significant first (extra bits, header fields).
        mutating func bits(_ count: Int) throws(Failure) -> Int {
            var value = 0
            for index in 0..<count { value |= try next() << index }
            return value
        }

        /// `count` bits, most significant first (Huffman codes).
        mutating func reversedBits(_ count: Int) throws(Failure) -> Int {
            var value = 0
            for _ in 0..<count { value = value << 1 | (try next()) }
            return value
        }

        mutating func alignToByte() {
            if bit > 0 { position += 1; bit = 0 }
        }

        private mutating func next() throws(Failure) -> Int {
            guard position < bytes.count else { throw .truncated }
            let value = Int(bytes[position] >> bit) & 1
            bit += 1
            if bit == 8 { bit = 0; position += 1 }
            return value
        }
    }
}
