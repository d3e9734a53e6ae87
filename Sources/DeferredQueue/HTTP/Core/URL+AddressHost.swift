import Foundation

extension URL {
    /// Whether `host` (as `host(percentEncoded: true)` gives it) is an
    /// address a check of the host as text would misread.
    ///
    /// - The unspecified address, `0.0.0.0` (and all of `0.0.0.0/8`) or
    ///   `::`: no server has it, and Linux connects to this machine instead
    ///   (both transports reached a server on 127.0.0.1 or `::1`), unseen by
    ///   a check for `127.0.0.1` or `localhost`.
    /// - An IPv6 literal not in its RFC 5952 form, case aside
    ///   (`[0:0:0:0:0:0:0:1]`, `[::0:1]` and `[::0.0.0.1]` are `::1`, which
    ///   AsyncHTTPClient connected to), or with a zone on an address that is
    ///   not link-local (`fe80::/10`, where a zone names the interface).
    ///
    /// A name, and an IPv4 address not starting with `0.`, cost one byte
    /// compare and one scan for `:`.
    static func isMisreadAddress(_ host: String) -> Bool {
        let bytes = host.utf8
        if bytes.first == UInt8(ascii: "0"), bytes.dropFirst().first == UInt8(ascii: ".") {
            // A name's labels may be "0" too (`0.pool.ntp.org`): only an
            // address, dotted decimal by now (``isAmbiguousIPv4Host``), ends in a digit.
            let last = bytes.last == UInt8(ascii: ".") ? bytes.dropLast().last : bytes.last
            return last.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
        }
        guard host.utf8Offset(of: UInt8(ascii: ":")) != nil else { return false }
        return canonicalIPv6(host) == nil
    }

    /// The RFC 5952 form of an IPv6 literal written in it (case aside) with
    /// no zone, or a zone on a link-local address; `nil` otherwise, and for
    /// the unspecified address. (Apart from the scan: a host with a colon is rare.)
    @inline(never)
    static func canonicalIPv6(_ host: String) -> String? {
        let zoneStart = host.utf8.firstIndex(of: UInt8(ascii: "%"))
        let literal = zoneStart.map { String(host[..<$0]) } ?? host
        var address = in6_addr()
        guard inet_pton(AF_INET6, literal, &address) == 1 else { return nil }
        let (first, second, allZero) = withUnsafeBytes(of: &address) { bytes in (bytes[0], bytes[1], bytes.allSatisfy { $0 == 0 }) }
        if allZero { return nil }
        if zoneStart != nil, !(first == 0xfe && second & 0xc0 == 0x80) { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
        let canonical = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return canonical.caseInsensitiveCompare(literal) == .orderedSame ? canonical : nil
    }
}
