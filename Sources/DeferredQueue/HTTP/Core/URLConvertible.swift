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
    var isHTTPURLWithHost: Bool { httpSchemeIsLowercase != nil }

    /// What a session may send to: this URL as it is (`http(s)` with a host,
    /// the scheme in lower case, a port that is one), the same URL with its
    /// scheme lowercased (RFC 3986's canonical form: `HTTP://` is `http://`,
    /// which corelibs URLSession alone accepts), or nothing.
    ///
    /// A port beyond 65535 parses, and AsyncHTTPClient traps on it (an IP
    /// address's) or sends to it modulo 65536 (a host name's): checked on
    /// every attempt, a redirect's included.
    var sendableForm: SendableForm {
        guard let isLowercase = httpSchemeIsLowercase, hasSendablePort, !hasAmbiguousIPv4Host else { return .refused }
        if isLowercase { return .asIs }
        guard let scheme, var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return .refused }
        components.scheme = scheme.lowercased()
        return components.url.map(SendableForm.lowercased) ?? .refused
    }

    /// Whether the port, if any, is one (0–65535): see ``sendableForm``.
    var hasSendablePort: Bool { port.map { (0...65_535).contains($0) } ?? true }

    /// Whether the host ends in a number without being an IPv4 address in
    /// dotted decimal (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`): the
    /// forms `inet_aton` reads as an address. AsyncHTTPClient connected to
    /// 127.0.0.1 for each, where corelibs refuses them, and a check of the
    /// host as text (a blocklist of internal addresses) does not see it.
    var hasAmbiguousIPv4Host: Bool {
        guard var host = host(percentEncoded: true), let last = host.utf8.last, last == UInt8(ascii: ".") || (0x30...0x39).contains(last),
              !host.contains(":")
        else { return false }
        if host.hasSuffix(".") { host.removeLast() }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard let final = labels.last, final.allSatisfy(\.isASCIIDigit) || final.lowercased().hasPrefix("0x") else { return false }
        return labels.count != 4 || !labels.allSatisfy { label in
            !label.isEmpty && label.count <= 3 && label.allSatisfy(\.isASCIIDigit) && (label == "0" || label.first != "0")
                && Int(label).map { $0 <= 255 } == true
        }
    }

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
    private var httpSchemeIsLowercase: Bool? {
        guard let scheme else { return nil }
        let isLowercase = scheme == "http" || scheme == "https"
        if !isLowercase {
            let lowercased = scheme.lowercased()
            guard lowercased == "http" || lowercased == "https" else { return nil }
        }
        // The host as written: empty exactly when the decoded one is, without
        // the percent-decoding `host` does (checked for every request).
        guard let host = host(percentEncoded: true), !host.isEmpty else { return nil }
        return isLowercase
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

extension Character {
    /// `0`–`9`.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
