import Foundation
import Testing
@testable import DeferredQueue

/// Stores `setCookies` (one `Set-Cookie` string each) received from `url` into `jar`.
@discardableResult
func receive(_ setCookies: [String], from url: String, into jar: inout CookieJar, at now: Date = Date()) throws -> [StoredCookie] {
    let parsed = setCookies.compactMap { SetCookieParser.parse(Substring($0)) }
    return jar.store(parsed, from: try #require(URL(string: url)), at: now)
}

/// The `Cookie` header `jar` sends to `url`.
func header(for url: String, in jar: inout CookieJar, at now: Date = Date()) throws -> String? {
    CookieJar.header(for: jar.cookies(for: try #require(URL(string: url)), at: now))
}

@Suite("Cookie acceptance: a server sets cookies for itself, never for another site")
struct CookieRulesTests {
    @Test func aDomainThatTheHostDoesNotDomainMatchIsRefused() throws {
        var jar = CookieJar()
        try receive(["planted=1; Domain=localhost"], from: "http://127.0.0.1/", into: &jar)
        try receive(["planted=2; Domain=bank.test"], from: "http://evil.test/", into: &jar)
        try receive(["planted=3; Domain=www.example.com"], from: "http://example.com/", into: &jar)
        #expect(jar.count == 0)
        #expect(try header(for: "http://localhost/", in: &jar) == nil)
        #expect(try header(for: "http://bank.test/", in: &jar) == nil)
    }

    @Test func aParentDomainReachesItsSubdomainsOnly() throws {
        var jar = CookieJar()
        try receive(["shared=1; Domain=.Example.com", "mine=2"], from: "http://www.example.com/", into: &jar)
        #expect(try header(for: "http://api.example.com/", in: &jar) == "shared=1")
        #expect(try header(for: "http://example.com/", in: &jar) == "shared=1")
        #expect(try header(for: "http://www.example.com/", in: &jar) == "shared=1; mine=2")
        #expect(try header(for: "http://notexample.com/", in: &jar) == nil)
    }

    @Test func publicSuffixDomainsAreRefusedUnlessTheyAreTheHost() throws {
        var jar = CookieJar()
        try receive(["a=1; Domain=com"], from: "http://bank.com/", into: &jar)
        try receive(["b=1; Domain=.co.uk"], from: "http://bank.co.uk/", into: &jar)
        try receive(["c=1; Domain=github.io"], from: "http://someone.github.io/", into: &jar)
        #expect(jar.count == 0)
        let stored = try receive(["d=1; Domain=co.uk"], from: "http://co.uk/", into: &jar)
        #expect(stored.map(\.hostOnly) == [true], "a public suffix that is the host itself becomes host-only")
        #expect(try header(for: "http://bank.co.uk/", in: &jar) == nil)
    }

    @Test func anIPHostAcceptsNoDomainButItself() throws {
        var jar = CookieJar()
        try receive(["a=1; Domain=0.0.1", "b=1; Domain=0.1", "c=1; Domain=1"], from: "http://127.0.0.1/", into: &jar)
        #expect(jar.count == 0)
        let stored = try receive(["d=1; Domain=127.0.0.1"], from: "http://127.0.0.1/", into: &jar)
        #expect(stored.first?.hostOnly == true)
        #expect(try header(for: "http://127.0.0.1/", in: &jar) == "d=1")
        #expect(try header(for: "http://1.127.0.0.1/", in: &jar) == nil)
        #expect(CookieRules.isIPAddress("::1") && CookieRules.isIPAddress("127.1") && CookieRules.isIPAddress("0x7f.1"))
    }

    @Test func secureCookiesComeOnlyFromAndGoOnlyToHTTPS() throws {
        var jar = CookieJar()
        try receive(["s=1; Secure"], from: "http://example.com/", into: &jar)
        #expect(jar.count == 0)
        try receive(["s=2; Secure"], from: "https://example.com/", into: &jar)
        #expect(try header(for: "http://example.com/", in: &jar) == nil)
        #expect(try header(for: "https://example.com/", in: &jar) == "s=2")
    }

    @Test func anInsecureOriginCannotOverwriteOrShadowASecureCookie() throws {
        var jar = CookieJar()
        try receive(["token=good; Secure; Path=/"], from: "https://example.com/", into: &jar)
        try receive(["token=evil; Path=/", "token=evil; Path=/deeper"], from: "http://example.com/", into: &jar)
        #expect(jar.allCookies.map(\.value) == ["good"])
        try receive(["token=new; Secure; Path=/"], from: "https://example.com/", into: &jar)
        #expect(try header(for: "https://example.com/deeper", in: &jar) == "token=new")
    }

    @Test func prefixedNamesKeepTheirPromises() throws {
        var jar = CookieJar()
        try receive(["__Secure-a=1", "__Host-b=1; Secure; Path=/; Domain=example.com", "__Host-c=1; Secure",
                     "__host-d=1; Secure; Path=/app"], from: "https://www.example.com/app/page", into: &jar)
        #expect(jar.count == 0)
        try receive(["__Secure-a=1; Secure", "__Host-b=1; Secure; Path=/"], from: "https://www.example.com/", into: &jar)
        #expect(jar.allCookies.map(\.name).sorted() == ["__Host-b", "__Secure-a"])
    }

    @Test func pathDefaultsToTheRequestsDirectoryAndLimitsWhereACookieGoes() throws {
        var jar = CookieJar()
        try receive(["dir=1"], from: "http://example.com/docs/page.html", into: &jar)
        try receive(["root=1; Path=/"], from: "http://example.com/docs/page.html", into: &jar)
        #expect(jar.allCookies.first { $0.name == "dir" }?.path == "/docs")
        #expect(try header(for: "http://example.com/docs/other", in: &jar) == "dir=1; root=1")
        #expect(try header(for: "http://example.com/docsx", in: &jar) == "root=1")
        #expect(try header(for: "http://example.com/", in: &jar) == "root=1")
    }

    @Test func maxAgeWinsOverExpiresAndZeroDeletes() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var jar = CookieJar()
        let stored = try receive(["a=1; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:01 GMT"], from: "http://example.com/", into: &jar, at: now)
        #expect(stored.first?.expires == now.addingTimeInterval(60))
        try receive(["a=1; Max-Age=0"], from: "http://example.com/", into: &jar, at: now)
        #expect(jar.count == 0)
        let capped = try receive(["b=1; Max-Age=999999999"], from: "http://example.com/", into: &jar, at: now)
        #expect(capped.first?.expires == now.addingTimeInterval(400 * 86_400), "lifetimes are capped at 400 days")
        #expect(try header(for: "http://example.com/", in: &jar, at: now.addingTimeInterval(401 * 86_400)) == nil)
        #expect(jar.count == 0, "expired cookies are dropped when seen")
    }

    @Test func longerPathsGoFirstThenEarlierCreationAndAReplacedCookieKeepsItsPlace() throws {
        var jar = CookieJar()
        try receive(["first=1; Path=/", "second=1; Path=/", "deep=1; Path=/a/b", "mid=1; Path=/a"], from: "http://example.com/", into: &jar)
        try receive(["first=2; Path=/"], from: "http://example.com/", into: &jar)
        #expect(try header(for: "http://example.com/a/b/c", in: &jar) == "deep=1; mid=1; first=2; second=1")
    }
}
