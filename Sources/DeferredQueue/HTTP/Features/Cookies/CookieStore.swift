import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a ``Session`` keeps cookies. The session sends and stores them
/// itself, for every attempt and every redirect hop, the same way on every
/// transport.
protocol CookieStore: Sendable {
    /// The `Cookie` header value for a request to `url`, or `nil` for none.
    func cookieHeader(for url: URL) -> String?
    /// Stores the cookies `response` sets.
    func storeCookies(from response: HTTPURLResponse)
}

extension CookieStore {
    /// The cookies a response sets (its `Set-Cookie` fields), if any.
    static func cookies(setBy response: HTTPURLResponse) -> [HTTPCookie] {
        guard let url = response.url, response.value(forHTTPHeaderField: "Set-Cookie") != nil else { return [] }
        var fields: [String: String] = [:]
        for case let (name as String, value as String) in response.allHeaderFields {
            fields[name] = value
        }
        return HTTPCookie.cookies(withResponseHeaderFields: fields, for: url)
    }
}

/// A cookie store that lives in memory only and dies with its session: the
/// default on Linux, where `HTTPCookieStorage.shared` is written to a file
/// under `$HOME/.local/share/` that other programs read.
final class InMemoryCookieStore: CookieStore {
    private let cookies = Mutex<[HTTPCookie]>([])
    /// How many cookies `cookies` holds, readable without the lock: a session
    /// that never received a cookie pays no lock per request.
    private let count = Atomic<Int>(0)

    func cookieHeader(for url: URL) -> String? {
        guard count.load(ordering: .acquiring) > 0 else { return nil }
        let now = Date()
        let matching = cookies.withLock(owner: self) { cookies -> [HTTPCookie] in
            cookies.removeAll { $0.expiresDate.map { $0 <= now } ?? false }
            count.store(cookies.count, ordering: .releasing)
            return cookies.filter { Self.matches($0, url) }
        }
        guard !matching.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: matching)["Cookie"]
    }

    func storeCookies(from response: HTTPURLResponse) {
        let received = Self.cookies(setBy: response)
        guard !received.isEmpty else { return }
        let now = Date()
        cookies.withLock(owner: self) { cookies in
            for cookie in received {
                cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                if cookie.expiresDate.map({ $0 > now }) ?? true { cookies.append(cookie) }
            }
            count.store(cookies.count, ordering: .releasing)
        }
    }

    /// Domain, path and `Secure` matching (RFC 6265 §5.4).
    static func matches(_ cookie: HTTPCookie, _ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        let domain = cookie.domain.lowercased()
        let domainMatches = domain.hasPrefix(".")
            ? host == domain.dropFirst() || host.hasSuffix(domain)
            : host == domain
        guard domainMatches else { return false }
        if cookie.isSecure, url.scheme?.lowercased() != "https" { return false }
        let path = url.path.isEmpty ? "/" : url.path
        let cookiePath = cookie.path.isEmpty ? "/" : cookie.path
        return path == cookiePath || path.hasPrefix(cookiePath.hasSuffix("/") ? cookiePath : cookiePath + "/")
    }
}

/// A caller's `HTTPCookieStorage`, used as the session's cookie store.
struct SystemCookieStore: CookieStore {
    let storage: HTTPCookieStorage

    func cookieHeader(for url: URL) -> String? {
        guard let cookies = storage.cookies(for: url), !cookies.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }

    func storeCookies(from response: HTTPURLResponse) {
        let cookies = Self.cookies(setBy: response)
        guard !cookies.isEmpty, let url = response.url else { return }
        storage.setCookies(cookies, for: url, mainDocumentURL: nil)
    }
}
