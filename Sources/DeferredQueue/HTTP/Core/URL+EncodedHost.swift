import Foundation

extension URL {
    /// Whether this URL's host is written percent-encoded outside an IPv6
    /// literal's zone (`[fe80::1%25eth0]`, RFC 6874, whose zone is then
    /// unreserved characters alone). `host`: the host as
    /// `host(percentEncoded: true)` gives it.
    ///
    /// Foundation decodes such a host before a transport sees it, and the
    /// transports disagree on what comes out: `127.0.0.1%00.evil` decodes to
    /// a name with a NUL in it, which a C resolver reads as `127.0.0.1`
    /// (unseen by a check of the host as text), `%2F` to a name with a
    /// slash, and `%EF%BC%90x7f.1` to `０x7f.1`, which IDNA maps to
    /// `0x7f.1`. A name written in Unicode is not: Foundation gives it
    /// encoded here (`b%C3%BCcher.de`) but writes it in punycode in the URL
    /// the transports send to (`xn--bcher-kva.de`), which is what is read
    /// when `host` has a `%`. One scan for `%`, nothing more, for every
    /// host without one.
    func isEncodedHost(_ host: String) -> Bool {
        guard let percentOffset = host.utf8Offset(of: UInt8(ascii: "%")) else { return false }
        let bytes = host.utf8
        let percent = bytes.index(bytes.startIndex, offsetBy: percentOffset)
        if host.utf8Offset(of: UInt8(ascii: ":")) != nil {
            // An IPv6 literal: one "%25", then a non-empty zone of unreserved characters.
            let zone = bytes[percent...].dropFirst(3)
            return !bytes[percent...].starts(with: "%25".utf8) || zone.isEmpty || !zone.allSatisfy(Self.isUnreserved)
        }
        return Self.authorityHasPercent(absoluteString)
    }

    /// Whether `url`'s authority, past any userinfo, has a `%`.
    private static func authorityHasPercent(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            var index = 0
            // Past "scheme://".
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") { index += 1 }
            index += 3
            var percent = false
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return percent
                case UInt8(ascii: "@"): percent = false   // userinfo ends here
                case UInt8(ascii: "%"): percent = true
                default: break
                }
                index += 1
            }
            return percent
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
