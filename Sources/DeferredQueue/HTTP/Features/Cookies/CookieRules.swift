import Foundation

/// RFC 6265bis in one place: which cookies a response may set (§5.7) and
/// which a request carries (§5.8.3), for every cookie store and transport.
enum CookieRules {
    /// The longest lifetime a cookie may ask for (RFC 6265bis §5.6.1–2: 400 days).
    static let maximumLifetime: TimeInterval = 400 * 86_400

    /// Why a `Set-Cookie` was not stored (for tests and event monitors of the future).
    enum Refusal: Error, Equatable, Sendable {
        case domainMismatch, publicSuffix, ipAddressDomain, insecureSecure, prefixViolation, noHost
    }

    /// The request's host as cookies see it: lower-cased, brackets of an
    /// IPv6 literal removed; `nil` when the URL has none.
    static func canonicalHost(of url: URL) -> String? {
        guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    /// Whether `url` is a secure origin (its scheme is `https` or `wss`).
    static func isSecure(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https", "wss": return true
        default: return false
        }
    }

    /// Whether `host` is an IP address rather than a domain name: an IPv6
    /// literal, or a host whose last label is a number (as URL parsers read
    /// `127.1` or `0x7f.0.0.1` as IPv4).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        guard let last = host.split(separator: ".", omittingEmptySubsequences: false).last, !last.isEmpty else { return false }
        if last.allSatisfy({ ("0"..."9").contains($0) }) { return true }
        let lower = last.lowercased()
        return lower.hasPrefix("0x") && lower.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// Domain-match (RFC 6265 §5.1.3): `host` is `domain`, or a name (not
    /// an IP address) that ends with "." + `domain`.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        return !isIPAddress(host) && host.hasSuffix(domain) && host.dropLast(domain.count).hasSuffix(".")
    }

    /// Path-match (RFC 6265 §5.1.4).
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// The request path as cookies see it: percent-encoded, "/" when empty.
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    /// The default path (RFC 6265 §5.1.4): the request path up to its last "/".
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.first == "/", let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Whether `string` starts with `prefix`, ignoring ASCII case (cookie prefixes are case-insensitive).
    static func hasPrefix(_ string: some StringProtocol, _ prefix: String) -> Bool {
        string.utf8.first == UInt8(ascii: "_") && string.utf8.count >= prefix.utf8.count
            && string.prefix(prefix.count).lowercased() == prefix.lowercased()
    }

    /// What the rules need to know about the URL a response came from,
    /// worked out once per response rather than once per cookie.
    struct Origin: Sendable {
        var host: String
        var hostIsIPAddress: Bool
        var isSecure: Bool
        var defaultPath: String

        init?(_ url: URL) {
            guard let host = CookieRules.canonicalHost(of: url) else { return nil }
            self.host = host
            hostIsIPAddress = CookieRules.isIPAddress(host)
            isSecure = CookieRules.isSecure(url)
            defaultPath = CookieRules.defaultPath(of: url)
        }
    }

    /// The cookie `parsed` becomes when received in a response to `url` at
    /// `now`, or why it is refused (RFC 6265bis §5.7). Whether it may replace
    /// a `Secure` cookie already stored is the store's check.
    static func accept(_ parsed: ParsedSetCookie, from url: URL, at now: Date) -> Result<StoredCookie, Refusal> {
        guard let origin = Origin(url) else { return .failure(.noHost) }
        return accept(parsed, from: origin, at: now)
    }

    /// The cookie `parsed` becomes when received from `origin` at `now`, or why it is refused.
    static func accept(_ parsed: ParsedSetCookie, from origin: Origin, at now: Date) -> Result<StoredCookie, Refusal> {
        let host = origin.host
        var domain = host
        var hostOnly = true
        if let attribute = parsed.domain {
            if origin.hostIsIPAddress {
                // An IP host accepts no Domain but itself.
                guard attribute == host else { return .failure(.ipAddressDomain) }
            } else if !attribute.allSatisfy(\.isASCII) || attribute.split(separator: ".", omittingEmptySubsequences: false).contains("") {
                // Not a domain name in ASCII form (an IDN, an empty label, a trailing dot).
                return .failure(.domainMismatch)
            } else if PublicSuffixList.isPublicSuffix(attribute) {
                guard attribute == host else { return .failure(.publicSuffix) }
            } else {
                guard domainMatches(host, attribute) else { return .failure(.domainMismatch) }
                hostOnly = false
                domain = attribute
            }
        }
        if parsed.secure, !origin.isSecure { return .failure(.insecureSecure) }
        let path = parsed.path ?? origin.defaultPath
        if hasPrefix(parsed.name, "__Secure-"), !parsed.secure { return .failure(.prefixViolation) }
        if hasPrefix(parsed.name, "__Host-"), !parsed.secure || !hostOnly || parsed.path != "/" {
            return .failure(.prefixViolation)
        }
        var expires: Date?
        if let maxAge = parsed.maxAge {
            expires = maxAge <= 0 ? .distantPast : now.addingTimeInterval(min(Double(maxAge), maximumLifetime))
        } else if let date = parsed.expires {
            expires = min(date, now.addingTimeInterval(maximumLifetime))
        }
        return .success(StoredCookie(
            name: parsed.name, value: parsed.value, domain: domain, hostOnly: hostOnly, path: path,
            secure: parsed.secure, httpOnly: parsed.httpOnly, expires: expires
        ))
    }

    /// Whether `cookie` goes with a request to `url` (RFC 6265bis §5.8.3),
    /// given the request's canonical host, path and security.
    static func shouldSend(_ cookie: StoredCookie, host: String, path: String, secure: Bool, now: Date) -> Bool {
        guard cookie.hostOnly ? host == cookie.domain : domainMatches(host, cookie.domain) else { return false }
        guard pathMatches(path, cookie.path) else { return false }
        if cookie.secure, !secure { return false }
        return !cookie.isExpired(at: now)
    }

    /// Whether a new non-`Secure` cookie from an insecure origin would
    /// shadow `existing`, a `Secure` one (RFC 6265bis §5.7 step 16): then it is refused.
    static func wouldShadowSecure(_ new: StoredCookie, _ existing: StoredCookie) -> Bool {
        existing.secure && existing.name == new.name
            && (domainMatches(existing.domain, new.domain) || domainMatches(new.domain, existing.domain))
            && pathMatches(new.path, existing.path)
    }

    /// The order of the `Cookie` header (RFC 6265 §5.4 step 2): longer
    /// paths first, then earlier creation.
    static func sendsBefore(_ lhs: StoredCookie, _ rhs: StoredCookie) -> Bool {
        lhs.path.count != rhs.path.count ? lhs.path.count > rhs.path.count : lhs.creation < rhs.creation
    }
}
