import Foundation

extension URL {
    /// Whether `host`, as written, percent-encodes an ASCII byte outside an
    /// IPv6 literal's zone (`[fe80::1%25eth0]`, RFC 6874, whose zone is then
    /// unreserved characters alone).
    ///
    /// Foundation decodes such a host before a transport sees it, and the
    /// transports disagree on what comes out: `127.0.0.1%00.evil` decodes to
    /// a name with a NUL in it, which a C resolver reads as `127.0.0.1`
    /// (unseen by a check of the host as text), and `%2F` to a name with a
    /// slash. Encoded bytes from 0x80 up are a name's UTF-8 (Foundation
    /// writes `bücher.de` as `b%C3%BCcher.de` here, and sends it as
    /// `xn--bcher-kva.de`): kept. One scan for `%`, nothing more, for every
    /// host without one.
    static func isEncodedHost(_ host: String) -> Bool {
        guard let percent = host.utf8.firstIndex(of: UInt8(ascii: "%")) else { return false }
        let bytes = host.utf8
        if bytes.contains(UInt8(ascii: ":")) {
            // An IPv6 literal: one "%25", then a non-empty zone of unreserved characters.
            let zone = bytes[percent...].dropFirst(3)
            return !bytes[percent...].starts(with: "%25".utf8) || zone.isEmpty || !zone.allSatisfy(isUnreserved)
        }
        var index = percent
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%") {
                // Two hexadecimal digits, the first 8 or more: a UTF-8 byte.
                let digits = bytes[bytes.index(after: index)...].prefix(2)
                guard digits.count == 2, let high = digits.first.flatMap(hexValue), high >= 8, digits.last.flatMap(hexValue) != nil
                else { return true }
            }
            index = bytes.index(after: index)
        }
        return false
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
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

    /// Why a session refuses this `http(s)` URL with a host
    /// (``sendableForm``), in words for ``HTTPError/invalidURL(_:)``'s
    /// description; `nil` when it has no such scheme or host, or is sent.
    var refusalReason: String? {
        guard let (_, host) = httpForm else { return nil }
        if Self.isEncodedHost(host) {
            return "its host \"\(host)\" is percent-encoded, and the transports would each decode it "
                + "differently (a %00 ends the name early for the resolver); write the host name itself"
        }
        if !hasSendablePort {
            return "its port is not a number from 0 to 65535"
        }
        if Self.isAmbiguousIPv4Host(host) {
            return "its host \"\(host)\" ends in a number but is not an IPv4 address in dotted decimal "
                + "(an IPv6 address embedding an IPv4 one is refused too); write the address as four "
                + "decimal numbers, e.g. \"127.0.0.1\""
        }
        return nil
    }
}
