import Foundation

/// A value that can name an `http` or `https` URL: `String`, `URL` or `URLComponents`.
///
/// `asURL()` is strict on every platform: the URL must parse, use the `http` or `https`
/// scheme (any casing) and have a non-empty host. (Foundation's `URL(string:)` on its own
/// accepts `"http://"`, `"not a url"` and other strings no HTTP request can use.)
public protocol URLConvertible: Sendable {
    /// The URL this value names.
    ///
    /// - Returns: An `http` or `https` URL with a host.
    /// - Throws: ``HTTPError/invalidURL(_:)`` when the value is not such a URL.
    func asURL() throws -> URL
}

extension URL {
    /// Whether this is an `http`/`https` URL with a non-empty host.
    var isHTTPURLWithHost: Bool { httpForm != nil }

    /// What a session may send to: this URL as it is (`http(s)` with a host,
    /// the scheme in lower case, a port that is one), the same URL with its
    /// scheme lowercased (RFC 3986's canonical form: `HTTP://` is `http://`,
    /// which corelibs URLSession alone accepts), or nothing.
    ///
    /// A port beyond 65535 parses, and AsyncHTTPClient traps on it (an IP
    /// address's) or sends to it modulo 65536 (a host name's): checked on
    /// every attempt, a redirect's included, with the host
    /// (``hasAmbiguousIPv4Host``), a host written percent-encoded
    /// (``isEncodedHost(_:)``), and an address misread as text
    /// (``isMisreadAddress(_:)``).
    var sendableForm: SendableForm {
        guard let (isLowercase, host) = httpForm, hasSendablePort, !Self.isAmbiguousIPv4Host(host), !isEncodedHost(host),
              !Self.isMisreadAddress(host)
        else { return .refused }
        if isLowercase { return .asIs }
        guard let scheme, var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return .refused }
        components.scheme = scheme.lowercased()
        return components.url.map(SendableForm.lowercased) ?? .refused
    }

    /// Whether the port, if any, is one (0–65535): see ``sendableForm``. A
    /// port too large for `Int` parses as none, and AsyncHTTPClient would
    /// send to the scheme's default port: the URL is read for one too.
    var hasSendablePort: Bool {
        if let port { return (0...65_535).contains(port) }
        return !Self.spellsPort(absoluteString)
    }

    /// Whether the authority of `url` (as written) has a port after its
    /// host: digits after a colon past any `]`, before the path. One pass
    /// over the scheme and authority.
    private static func spellsPort(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            var index = 0
            // Past "scheme://".
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") { index += 1 }
            index += 3
            var colonAt: Int?
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return colonAt.map { $0 + 1 < index } ?? false
                case UInt8(ascii: "@"), UInt8(ascii: "]"): colonAt = nil   // userinfo, or an IPv6 literal, ends here
                case UInt8(ascii: ":"): colonAt = index
                default: break
                }
                index += 1
            }
            return colonAt.map { $0 + 1 < index } ?? false
        }
    }

    /// Whether the host ends in a number without being an IPv4 address in
    /// dotted decimal (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`): the
    /// forms `inet_aton` reads as an address; or is an IPv6 literal that
    /// embeds an IPv4 address (`[::ffff:127.0.0.1]`). AsyncHTTPClient connected to
    /// 127.0.0.1 for each, where corelibs refuses them, and a check of the
    /// host as text (a blocklist of internal addresses) does not see it.
    var hasAmbiguousIPv4Host: Bool { host(percentEncoded: true).map(Self.isAmbiguousIPv4Host) ?? false }

    /// See ``hasAmbiguousIPv4Host``: one pass over the bytes, no allocation
    /// (it runs before every attempt).
    static func isAmbiguousIPv4Host(_ host: String) -> Bool {
        // An IPv6 literal's zone is not part of its address (`inet_pton` refuses it).
        if let zone = host.utf8Offset(of: UInt8(ascii: "%")), host.utf8Offset(of: UInt8(ascii: ":")) != nil {
            return isAmbiguousIPv4Host(String(decoding: host.utf8.prefix(zone), as: UTF8.self))
        }
        var host = host
        return host.withUTF8 { bytes in
            var end = bytes.count
            if end > 0, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
            guard end > 0, isHexDigit(bytes[end - 1]) else { return false }
            var scan = LabelScan()
            for index in 0..<end {
                let byte = bytes[index]
                if byte == UInt8(ascii: ":") { return embedsIPv4(UnsafeRawBufferPointer(bytes)) }
                if byte == UInt8(ascii: ".") { scan.endLabel() } else { scan.add(byte) }
            }
            // Only a host whose last label is a number (decimal, or 0x…) is read as an address.
            guard scan.labelIsNumber else { return false }
            scan.endLabel()
            return !(scan.dottedDecimal && scan.labels == 4)
        }
    }

    /// Whether an IPv6 literal is an IPv4 address in disguise: IPv4-mapped
    /// (`::ffff:127.0.0.1`, `::ffff:7f00:1`) or IPv4-compatible
    /// (`::127.0.0.1`, deprecated), which AsyncHTTPClient connected to as the
    /// IPv4 address and corelibs refused; `::` and `::1` are not. Apart from
    /// the scan: a host with a colon is rare.
    @inline(never)
    private static func embedsIPv4(_ host: UnsafeRawBufferPointer) -> Bool {
        var text = [CChar](repeating: 0, count: host.count + 1)
        for (index, byte) in host.enumerated() { text[index] = CChar(bitPattern: byte) }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return false }
        return withUnsafeBytes(of: &address) { bytes in
            let prefixIsZero = bytes[0..<10].allSatisfy { $0 == 0 }
            let mapped = prefixIsZero && bytes[10] == 0xff && bytes[11] == 0xff
            // `::/96`, but for `::` and `::1`.
            let compatible = prefixIsZero && bytes[10] == 0 && bytes[11] == 0
                && (bytes[12..<15].contains { $0 != 0 } || bytes[15] > 1)
            return mapped || compatible
        }
    }

    /// The labels of a host read so far: whether each was a dotted-decimal
    /// byte (1–3 digits, no leading zero, at most 255), and the current one.
    private struct LabelScan {
        var labels = 0, dottedDecimal = true
        var length = 0, value = 0, digitsOnly = true, hexAfterPrefix = true, first: UInt8 = 0, second: UInt8 = 0

        mutating func add(_ byte: UInt8) {
            if length == 0 { first = byte } else if length == 1 { second = byte }
            if isDigit(byte) { value = min(value * 10 + Int(byte - UInt8(ascii: "0")), 1_000) } else { digitsOnly = false }
            if length >= 2, !isHexDigit(byte) { hexAfterPrefix = false }
            length += 1
        }

        /// Whether the current label is a number: decimal, or `0x` and hexadecimal.
        var labelIsNumber: Bool {
            length > 0 && (digitsOnly || (length >= 2 && first == UInt8(ascii: "0") && second | 0x20 == UInt8(ascii: "x") && hexAfterPrefix))
        }

        mutating func endLabel() {
            if length == 0 || length > 3 || !digitsOnly || (length > 1 && first == UInt8(ascii: "0")) || value > 255 {
                dottedDecimal = false
            }
            labels += 1
            (length, value, digitsOnly, hexAfterPrefix) = (0, 0, true, true)
        }
    }

    fileprivate static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    fileprivate static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20) }

    /// See ``sendableForm``.
    enum SendableForm {
        case asIs
        case lowercased(URL)
        case refused
    }

    /// `nil` unless this is an `http`/`https` URL (any casing) with a
    /// non-empty host; otherwise whether the scheme is already in lower case.
    /// The scheme is read once, and the common lower-case spelling compared
    /// without lowercasing (an allocation).
    var httpForm: (schemeIsLowercase: Bool, host: String)? {
        guard let scheme else { return nil }
        let isLowercase = scheme == "http" || scheme == "https"
        if !isLowercase {
            let lowercased = scheme.lowercased()
            guard lowercased == "http" || lowercased == "https" else { return nil }
        }
        // The host as written: empty exactly when the decoded one is, without
        // the percent-decoding `host` does (checked for every request).
        guard let host = host(percentEncoded: true), !host.isEmpty else { return nil }
        return (isLowercase, host)
    }
}

extension String: URLConvertible {
    /// Parses the string as an `http` or `https` URL.
    ///
    /// - Returns: The URL.
    /// - Throws: ``HTTPError/invalidURL(_:)`` with this string when it does not parse or
    ///   lacks an http(s) scheme or a host.
    public func asURL() throws -> URL {
        guard let url = URL(string: self), url.isHTTPURLWithHost else { throw HTTPError.invalidURL(self) }
        return url
    }
}

extension URL: URLConvertible {
    /// Returns the URL itself after checking it.
    ///
    /// - Returns: `self`.
    /// - Throws: ``HTTPError/invalidURL(_:)`` when it is not an `http(s)` URL with a host.
    public func asURL() throws -> URL {
        guard isHTTPURLWithHost else { throw HTTPError.invalidURL(absoluteString) }
        return self
    }
}

extension URLComponents: URLConvertible {
    /// Builds the URL from the components.
    ///
    /// - Returns: The URL.
    /// - Throws: ``HTTPError/invalidURL(_:)`` when the components do not form an `http(s)`
    ///   URL with a host.
    public func asURL() throws -> URL {
        guard let url, url.isHTTPURLWithHost else { throw HTTPError.invalidURL(string ?? "\(self)") }
        return url
    }
}
