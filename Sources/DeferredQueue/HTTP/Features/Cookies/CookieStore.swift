import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a ``Session`` keeps cookies. The session sends and stores them
/// itself, for every attempt and every redirect hop, the same way on every
/// transport; what is accepted and what is sent is decided by
/// ``CookieRules`` (RFC 6265bis with the Public Suffix List) for every store.
/// Class-bound: the session's optional store is then one reference, which a
/// request reads and tests for `nil` without copying an existential.
protocol CookieStore: AnyObject, Sendable {
    /// The `Cookie` header value for a request to `url`, or `nil` for none.
    func cookieHeader(for url: URL) -> String?
    /// Stores the cookies `response` sets, those the rules accept.
    func storeCookies(from response: ResponseHead)
    /// Whether storing runs the caller's code (a caller's storage): then
    /// cookies are stored on the transport's callback queue, never on the
    /// transport's own thread.
    var isCallersStorage: Bool { get }
}

extension CookieStore {
    /// The cookies a response's `Set-Cookie` fields set, parsed by
    /// ``SetCookieParser`` (never by Foundation, whose acceptance rules are
    /// looser). Every field spelled `Set-Cookie` in any case is read. A head
    /// read off the wire (AsyncHTTPClient) keeps each field apart: each is
    /// one cookie, and a comma in its value (`a=1, b=2`, a reflected input)
    /// sets no second one. URLSession joins repeated fields with ", ": they
    /// are split again at each comma that starts a `name=` pair.
    static func setCookies(in response: ResponseHead) -> [ParsedSetCookie] {
        let values = response.values(forHTTPHeaderField: "Set-Cookie")
        guard response.joinsRepeatedFields else { return values.compactMap { SetCookieParser.parse($0[...]) } }
        return values.flatMap(SetCookieParser.cookies(in:))
    }
}

/// A cookie store that lives in memory only and dies with its session: the
/// default on Linux, where `HTTPCookieStorage.shared` is written to a file
/// under `$HOME/.local/share/` that other programs read, and the store of
/// every session made with `Session(transport:)`.
final class InMemoryCookieStore: CookieStore {
    var isCallersStorage: Bool { false }

    private let jar: Mutex<CookieJar>
    /// How many cookies the jar holds, readable without the lock: a session
    /// that never received a cookie pays no lock per request.
    private let count = Atomic<Int>(0)

    init(limits: CookieJar.Limits = CookieJar.Limits()) {
        jar = Mutex(CookieJar(limits: limits))
    }

    func cookieHeader(for url: URL) -> String? {
        guard count.load(ordering: .acquiring) > 0 else { return nil }
        let now = Date()
        let cookies = jar.withLock(owner: self) { jar -> [StoredCookie] in
            let cookies = jar.cookies(for: url, at: now)
            count.store(jar.count, ordering: .releasing)
            return cookies
        }
        return CookieJar.header(for: cookies)
    }

    func storeCookies(from response: ResponseHead) {
        let received = Self.setCookies(in: response)
        guard !received.isEmpty else { return }
        let url = response.url
        let now = Date()
        jar.withLock(owner: self) { jar in
            jar.store(received, from: url, at: now)
            count.store(jar.count, ordering: .releasing)
        }
    }

    /// Every cookie kept (for tests).
    var allCookies: [StoredCookie] { jar.withLock(owner: self) { $0.allCookies } }
}
