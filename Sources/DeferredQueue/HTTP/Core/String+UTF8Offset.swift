import Foundation

extension String {
    /// The offset of the first `byte` in this string's UTF-8, or `nil`.
    ///
    /// The host rules look for `%` and `:` in every request's host, before
    /// every attempt: `utf8.firstIndex(of:)` walks `String.Index` values a
    /// byte at a time, where this is one `memchr` over the contiguous bytes.
    func utf8Offset(of byte: UInt8) -> Int? {
        var contiguous = self
        return contiguous.withUTF8 { bytes in
            guard let base = bytes.baseAddress, let hit = memchr(base, Int32(byte), bytes.count) else { return nil }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
    }
}
