/// A `Content-Length` value read as RFC 9110 writes it, for both directions:
/// one plain decimal number, with optional spaces and tabs around it.
enum ContentLength {
    /// The longest value accepted, in digits: any 18-digit number fits in an `Int64`.
    static let maximumDigits = 18

    /// The length `value` states, or `nil` when it is not one plain decimal
    /// number of at most ``maximumDigits`` digits: empty, signed (`+5`),
    /// hexadecimal, a list (`5, 10`, which is also how repeated fields arrive
    /// joined), or too long. Never read leniently: a length two parsers read
    /// differently is how requests and responses are smuggled.
    static func parse(_ value: String) -> Int64? {
        let digits = value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
        guard !digits.isEmpty, digits.count <= maximumDigits else { return nil }
        var length: Int64 = 0
        for byte in digits.reversed() {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            length = length * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return length
    }
}
