import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A caller's `HTTPCookieStorage`, used as the session's cookie store under
/// the session's rules: only cookies that ``CookieRules`` accept are written
/// to it, and the cookies it holds (whoever put them there) are sent only
/// where ``CookieRules`` say, never where the storage's own matching would
/// (corelibs sends `Secure` cookies over `http` and ignores `Path`).
///
/// - Note: The storage keeps no access times, so the per-site and total caps
///   of the in-memory store do not apply to it; a response writes at most
///   ``CookieJar/Limits/perSite`` cookies, and the `Cookie` header cap applies.
final class SystemCookieStore: CookieStore {
    let storage: HTTPCookieStorage
    let limits: CookieJar.Limits

    init(storage: HTTPCookieStorage, limits: CookieJar.Limits = CookieJar.Limits()) {
        self.storage = storage
        self.limits = limits
    }

    var isCallersStorage: Bool { true }

    func cookieHeader(for url: URL) -> String? {
        guard let host = CookieRules.canonicalHost(of: url), let all = storage.cookies, !all.isEmpty else { return nil }
        let path = CookieRules.requestPath(of: url)
        let secure = CookieRules.isSecure(url)
        let now = Date()
        let matching = all.enumerated()
            .map { Self.storedCookie($0.element, creation: UInt64($0.offset)) }
            .filter { CookieRules.shouldSend($0, host: host, path: path, secure: secure, now: now) }
            .sorted(by: CookieRules.sendsBefore)
        return CookieJar.header(for: CookieJar.capped(matching, headerSize: limits.headerSize))
    }

    func storeCookies(from response: ResponseHead) {
        let received = Self.setCookies(in: response)
        guard !received.isEmpty, let origin = CookieRules.Origin(response.url) else { return }
        let now = Date()
        let secureOrigin = origin.isSecure
        let existing = (storage.cookies ?? []).map { (cookie: $0, stored: Self.storedCookie($0, creation: 0)) }
        var written: [StoredCookie.Identity: HTTPCookie] = [:]
        var order: [StoredCookie.Identity] = []
        for parsed in received {
            guard case .success(let cookie) = CookieRules.accept(parsed, from: origin, at: now) else { continue }
            if !secureOrigin, existing.contains(where: { CookieRules.wouldShadowSecure(cookie, $0.stored) }) { continue }
            for old in existing where old.stored.identity == cookie.identity { storage.deleteCookie(old.cookie) }
            if written.removeValue(forKey: cookie.identity) != nil { order.removeAll { $0 == cookie.identity } }
            guard !cookie.isExpired(at: now), let httpCookie = Self.httpCookie(cookie) else { continue }
            written[cookie.identity] = httpCookie
            order.append(cookie.identity)
        }
        // The last cookies a response sets win, up to the per-site cap.
        for identity in order.suffix(limits.perSite) {
            if let cookie = written[identity] { storage.setCookie(cookie) }
        }
    }

    /// A storage cookie as the rules see it: a domain with a leading dot
    /// reaches subdomains, one without is the host's alone (as Foundation
    /// documents `HTTPCookie.domain`).
    static func storedCookie(_ cookie: HTTPCookie, creation: UInt64) -> StoredCookie {
        var domain = cookie.domain.lowercased()
        let hostOnly = !domain.hasPrefix(".")
        if !hostOnly { domain.removeFirst() }
        return StoredCookie(
            name: cookie.name, value: cookie.value, domain: domain, hostOnly: hostOnly,
            path: cookie.path.isEmpty ? "/" : cookie.path, secure: cookie.isSecure, httpOnly: cookie.isHTTPOnly,
            expires: cookie.expiresDate, creation: creation, lastAccess: creation
        )
    }

    /// The `HTTPCookie` for an accepted cookie, or `nil` when Foundation refuses its characters.
    static func httpCookie(_ cookie: StoredCookie) -> HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: cookie.name, .value: cookie.value, .path: cookie.path,
            .domain: cookie.hostOnly ? cookie.domain : "." + cookie.domain,
        ]
        if cookie.secure { properties[.secure] = "TRUE" }
        if let expires = cookie.expires { properties[.expires] = expires } else { properties[.discard] = "TRUE" }
        return HTTPCookie(properties: properties)
    }
}
