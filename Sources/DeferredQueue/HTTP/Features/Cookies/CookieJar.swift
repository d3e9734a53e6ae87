import Foundation

/// The session's own cookies, as a value: RFC 6265bis storage and retrieval
/// with caps, in time linear in the cookies a response sets or a request
/// could carry. ``InMemoryCookieStore`` keeps one behind its lock.
///
/// Cookies are grouped by *site* (the registrable domain, such as
/// `example.co.uk`; the host itself for an IP address or a public suffix),
/// then keyed by identity. Every cookie a response may set, and every cookie
/// a request may carry, belongs to the site of the request's host, so storing
/// and matching touch one group, whose size the per-site cap bounds.
struct CookieJar: Sendable {
    /// How many cookies the jar keeps, and how large a `Cookie` header it sends.
    struct Limits: Sendable, Equatable {
        /// Cookies kept per site (browsers keep about 180).
        var perSite = 180
        /// Cookies kept in all (browsers keep about 3,000).
        var total = 3_000
        /// The largest `Cookie` header, in bytes: cookies beyond it, the last
        /// in sending order, are left out. Half of the 64 KiB request head
        /// many servers accept, so the rest of the head still fits.
        var headerSize = 32 * 1024
    }

    let limits: Limits
    private var sites: [String: [StoredCookie.Identity: StoredCookie]] = [:]
    /// The number of cookies in `sites`.
    private(set) var count = 0
    /// A counter that orders creations and accesses.
    private var clock: UInt64 = 0

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// The site a cookie domain or host belongs to.
    static func site(of domain: String) -> String {
        CookieRules.isIPAddress(domain) ? domain : PublicSuffixList.registrableDomain(of: domain) ?? domain
    }

    /// Every cookie kept, in no particular order (for tests).
    var allCookies: [StoredCookie] { sites.values.flatMap(\.values) }

    /// Stores the cookies of a response to `url` that the rules accept, and
    /// removes those it expires.
    ///
    /// - Returns: The cookies stored (expired ones, which only delete, excluded).
    @discardableResult
    mutating func store(_ received: [ParsedSetCookie], from url: URL, at now: Date) -> [StoredCookie] {
        guard !received.isEmpty, let origin = CookieRules.Origin(url) else { return [] }
        let site = Self.site(of: origin.host)
        let secureOrigin = origin.isSecure
        var bucket = sites.removeValue(forKey: site) ?? [:]
        let before = bucket.count
        // Secure cookies an insecure origin must not shadow, by name: looked up once per cookie.
        let secureByName = secureOrigin ? [:] : Dictionary(grouping: bucket.values.filter(\.secure), by: \.name)
        var stored: [StoredCookie] = []
        for parsed in received {
            guard case .success(var cookie) = CookieRules.accept(parsed, from: origin, at: now) else { continue }
            if !secureOrigin, let secure = secureByName[cookie.name],
               secure.contains(where: { CookieRules.wouldShadowSecure(cookie, $0) }) {
                continue
            }
            let identity = cookie.identity
            let previous = bucket.removeValue(forKey: identity)
            if cookie.isExpired(at: now) { continue }
            clock += 1
            cookie.creation = previous?.creation ?? clock
            cookie.lastAccess = clock
            bucket[identity] = cookie
            stored.append(cookie)
        }
        if bucket.count > limits.perSite { Self.evict(from: &bucket, downTo: limits.perSite, at: now) }
        count += bucket.count - before
        if !bucket.isEmpty { sites[site] = bucket }
        if count > limits.total { evictAcrossSites(at: now) }
        return stored
    }

    /// The cookies a request to `url` carries, in sending order, the header
    /// cap applied; marks them used.
    mutating func cookies(for url: URL, at now: Date) -> [StoredCookie] {
        guard count > 0, let host = CookieRules.canonicalHost(of: url) else { return [] }
        let site = Self.site(of: host)
        guard var bucket = sites.removeValue(forKey: site) else { return [] }
        let path = CookieRules.requestPath(of: url)
        let secure = CookieRules.isSecure(url)
        let before = bucket.count
        bucket = bucket.filter { !$0.value.isExpired(at: now) }
        let matching = bucket.values
            .filter { CookieRules.shouldSend($0, host: host, path: path, secure: secure, now: now) }
            .sorted(by: CookieRules.sendsBefore)
        let sent = Self.capped(matching, headerSize: limits.headerSize)
        for cookie in sent {
            clock += 1
            bucket[cookie.identity]?.lastAccess = clock
        }
        count += bucket.count - before
        if !bucket.isEmpty { sites[site] = bucket }
        return sent
    }

    /// The longest prefix of `cookies` whose `Cookie` header fits in `headerSize` bytes.
    static func capped(_ cookies: [StoredCookie], headerSize: Int) -> [StoredCookie] {
        var size = 0
        var kept = 0
        for cookie in cookies {
            let added = cookie.pair.utf8.count + (kept == 0 ? 0 : 2)
            guard size + added <= headerSize else { break }
            size += added
            kept += 1
        }
        return Array(cookies.prefix(kept))
    }

    /// The `Cookie` header value for `cookies`, already in sending order.
    static func header(for cookies: [StoredCookie]) -> String? {
        cookies.isEmpty ? nil : cookies.map(\.pair).joined(separator: "; ")
    }

    /// Eviction order: expired first, then cookies that are not `Secure`
    /// (so an insecure origin cannot push out a secure one by flooding),
    /// then the least recently used.
    private static func evictsBefore(_ lhs: StoredCookie, _ rhs: StoredCookie, now: Date) -> Bool {
        let lhsExpired = lhs.isExpired(at: now)
        let rhsExpired = rhs.isExpired(at: now)
        if lhsExpired != rhsExpired { return lhsExpired }
        if lhs.secure != rhs.secure { return !lhs.secure }
        return lhs.lastAccess < rhs.lastAccess
    }

    private static func evict(from bucket: inout [StoredCookie.Identity: StoredCookie], downTo limit: Int, at now: Date) {
        let victims = bucket.values.sorted { evictsBefore($0, $1, now: now) }.prefix(bucket.count - limit)
        for victim in victims { bucket.removeValue(forKey: victim.identity) }
    }

    /// Brings the jar back under the total cap, in eviction order across all sites.
    private mutating func evictAcrossSites(at now: Date) {
        let all = sites.flatMap { site, bucket in bucket.values.map { (site: site, cookie: $0) } }
        let victims = all.sorted { Self.evictsBefore($0.cookie, $1.cookie, now: now) }.prefix(count - limits.total)
        for victim in victims {
            sites[victim.site]?.removeValue(forKey: victim.cookie.identity)
            if sites[victim.site]?.isEmpty == true { sites[victim.site] = nil }
        }
        count -= victims.count
    }
}
