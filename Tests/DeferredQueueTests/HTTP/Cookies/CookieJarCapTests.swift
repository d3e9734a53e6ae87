import Foundation
import Testing
@testable import DeferredQueue

@Suite("Cookie caps: a flood of cookies is bounded and evicts the least useful first")
struct CookieJarCapTests {
    static func flood(_ response: Int, count: Int, valueSize: Int = 8) -> [String] {
        let value = String(repeating: "v", count: valueSize)
        return (0..<count).map { "c\(response)_\($0)=\(value)" }
    }

    @Test func twentyResponsesOfFifteenHundredCookiesKeepOneSitesCap() throws {
        var jar = CookieJar()
        for response in 0..<20 {
            let stored = try receive(Self.flood(response, count: 1_500), from: "http://127.0.0.1/", into: &jar)
            #expect(stored.count == 1_500)
            #expect(jar.count == jar.limits.perSite)
            let sent = try #require(try header(for: "http://127.0.0.1/", in: &jar))
            #expect(sent.utf8.count <= jar.limits.headerSize)
            #expect(sent.hasPrefix("c\(response)_1320="), "the newest cookies survive")
        }
    }

    @Test func theCookieHeaderIsCappedDroppingTheLastInSendingOrder() throws {
        var jar = CookieJar()
        for response in 0..<12 {
            try receive(Self.flood(response, count: 15, valueSize: 4_000), from: "http://example.com/", into: &jar)
        }
        #expect(jar.count == 180)
        let sent = try #require(try header(for: "http://example.com/", in: &jar))
        #expect(sent.utf8.count <= jar.limits.headerSize)
        #expect(sent.utf8.count > jar.limits.headerSize - 4_100, "as many cookies as fit are sent")
        #expect(sent.hasPrefix("c0_0="), "the earliest created go first")
    }

    @Test func theTotalCapEvictsTheLeastRecentlyUsedAcrossSites() throws {
        var jar = CookieJar(limits: CookieJar.Limits(perSite: 5, total: 8, headerSize: 4096))
        try receive(["a=1", "b=1", "c=1"], from: "http://one.example/", into: &jar)
        try receive(["d=1", "e=1", "f=1"], from: "http://two.example/", into: &jar)
        _ = try header(for: "http://one.example/", in: &jar)  // one.example's cookies are now the most recently used
        try receive(["g=1", "h=1", "i=1", "j=1"], from: "http://three.example/", into: &jar)
        #expect(jar.count == 8)
        #expect(try header(for: "http://one.example/", in: &jar) == "a=1; b=1; c=1")
        #expect(try header(for: "http://two.example/", in: &jar) == "f=1")
    }

    @Test func evictionTakesExpiredThenInsecureCookiesBeforeSecureOnes() throws {
        let now = Date()
        var jar = CookieJar(limits: CookieJar.Limits(perSite: 3, total: 100, headerSize: 4096))
        try receive(["secure=1; Secure", "short=1; Max-Age=10"], from: "https://example.com/", into: &jar, at: now)
        let later = now.addingTimeInterval(20)
        try receive(["x=1", "y=1"], from: "http://example.com/", into: &jar, at: later)
        #expect(Set(jar.allCookies.map(\.name)) == ["secure", "x", "y"])
        try receive(["z=1"], from: "http://example.com/", into: &jar, at: later)
        #expect(Set(jar.allCookies.map(\.name)) == ["secure", "y", "z"], "a flood over http does not push out the secure cookie")
    }
}
