/// The CRC-32 of gzip (ISO 3309, reflected polynomial `0xEDB88320`), with the
/// arithmetic that gives the CRC of a long repetitive body without reading it.
///
/// ``combine(_:_:secondLength:)`` works on finished CRC values: it returns the
/// CRC of `A + B` from `crc(A)`, `crc(B)` and `B.count`, by multiplying
/// `crc(A)` by x^(8·count) modulo the polynomial. Doubling with it gives the
/// CRC of a block repeated `k` times in O(log k) steps.
enum CRC32 {
    private static let polynomial: UInt32 = 0xEDB8_8320

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? polynomial ^ (value >> 1) : value >> 1 }
        return value
    }

    /// x^(2^k) modulo the polynomial, k = 0...66 (in the reflected representation).
    private static let powersOfX: [UInt32] = {
        var powers: [UInt32] = [1 << 30]  // x^1
        for _ in 1..<67 { powers.append(multiply(powers[powers.count - 1], powers[powers.count - 1])) }
        return powers
    }()

    /// The CRC of `bytes`, continuing from the CRC of what came before them.
    static func checksum(_ bytes: some Sequence<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        for byte in bytes { value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
        return ~value
    }

    /// The CRC of `A + B`, from `crc(A)`, `crc(B)` and the length of `B`.
    static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int64) -> UInt32 {
        multiply(xToThe8Times(secondLength), first) ^ second
    }

    /// The CRC of `unit` repeated to `length` bytes (the last copy possibly cut short).
    static func checksum(repeating unit: [UInt8], length: Int64) -> UInt32 {
        guard !unit.isEmpty, length > 0 else { return 0 }
        var copies = length / Int64(unit.count)
        var result: UInt32 = 0
        var power = checksum(unit)
        var powerLength = Int64(unit.count)
        while copies > 0 {
            if copies & 1 != 0 { result = combine(result, power, secondLength: powerLength) }
            copies >>= 1
            if copies > 0 {
                power = combine(power, power, secondLength: powerLength)
                powerLength *= 2
            }
        }
        let tail = Int(length % Int64(unit.count))
        return tail == 0 ? result : combine(result, checksum(unit[..<tail]), secondLength: Int64(tail))
    }

    /// a(x)·b(x) modulo the polynomial.
    private static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        guard a != 0 else { return 0 }
        var b = b
        var product: UInt32 = 0
        var mask: UInt32 = 1 << 31
        while true {
            if a & mask != 0 {
                product ^= b
                if a & (mask - 1) == 0 { return product }
            }
            mask >>= 1
            b = b & 1 != 0 ? (b >> 1) ^ polynomial : b >> 1
        }
    }

    /// x^(8·count) modulo the polynomial.
    private static func xToThe8Times(_ count: Int64) -> UInt32 {
        var result: UInt32 = 1 << 31  // x^0
        var count = UInt64(max(0, count))
        var exponent = 3  // count · 2^3 bits
        while count > 0 {
            if count & 1 != 0 { result = multiply(powersOfX[exponent], result) }
            count >>= 1
            exponent += 1
        }
        return result
    }
}
