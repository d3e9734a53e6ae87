import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Hostile cookies: what a server sets is judged by the session on every transport")
public struct HostileCookieTests {
    static let longAttribute = String(repeating: "a", count: 2_000)

    public static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/plant":
                return .response(status: 200, headers: [("Set-Cookie", "planted=1; Path=/; Domain=\(request.query["domain"] ?? "")")])
            case "/secure":
                return .response(status: 200, headers: [("Set-Cookie", "s=1; Secure; Path=/"), ("Set-Cookie", "plain=1; Path=/")])
            case "/oversized":
                return .response(status: 200, headers: [
                    ("Set-Cookie", "big=" + String(repeating: "x", count: 70_000) + "; Path=/"),
                    ("Set-Cookie", "small=1; Path=/; Domain=\(longAttribute).test"),
                ])
            case "/joined":
                return .response(status: 200, headers: [
                    ("Set-Cookie", "dated=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT; Path=/"),
                    ("Set-Cookie", "gone=1; Expires=Thu, 01 Jan 1970 00:00:01 GMT; Path=/"),
                    ("Set-Cookie", "plain=2; Path=/"),
                ])
            case "/flood":
                let round = request.query["round"] ?? "0"
                let count = Int(request.query["count"] ?? "") ?? 1_500
                let size = Int(request.query["size"] ?? "") ?? 1
                let value = String(repeating: "v", count: size)
                return .response(status: 200, headers: (0..<count).map { ("Set-Cookie", "c\(round)_\($0)=\(value); Path=/") })
            case "/size":
                return .text("\(request.header("Cookie")?.utf8.count ?? 0)")
            default:
                return .text(request.header("Cookie") ?? "(none)")
            }
        }
    }

    /// `url` with its host replaced by `localhost`, which resolves to the same server.
    static func onLocalhost(_ url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.host = "localhost"
        return components?.url ?? url
    }

    public static func get(_ url: URL, on session: Session) async -> String? {
        await response(within: 120) { session.request(url).responseString(queue: handlerQueue, completionHandler: $0) }?.value
    }

    static func stored(in session: Session) throws -> [StoredCookie] {
        try #require(session.cookieStore as? InMemoryCookieStore).allCookies
    }

    @Test func oneHostCannotPlantACookieForAnother() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        _ = await Self.get(server.url("/plant?domain=localhost"), on: session)
        _ = await Self.get(Self.onLocalhost(server.url("/plant?domain=127.0.0.1")), on: session)
        #expect(await Self.get(Self.onLocalhost(server.url("/echo")), on: session) == "(none)")
        #expect(await Self.get(server.url("/echo"), on: session) == "(none)")
        #expect(try Self.stored(in: session).isEmpty)
    }

    @Test(arguments: ["com", ".co.uk", "0.0.1", "0.1", "1"])
    func publicSuffixAndPartialIPDomainsAreRefused(domain: String) async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        _ = await Self.get(server.url("/plant?domain=\(domain)"), on: session)
        #expect(await Self.get(server.url("/echo"), on: session) == "(none)")
        #expect(try Self.stored(in: session).isEmpty)
    }

    @Test func anIPHostMaySetACookieForItselfByName() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        _ = await Self.get(server.url("/plant?domain=127.0.0.1"), on: session)
        #expect(await Self.get(server.url("/echo"), on: session) == "planted=1")
        #expect(await Self.get(Self.onLocalhost(server.url("/echo")), on: session) == "(none)")
    }

    @Test func aSecureCookieSetOverPlainHTTPIsRefused() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        _ = await Self.get(server.url("/secure"), on: session)
        #expect(try Self.stored(in: session).map(\.name) == ["plain"])
        #expect(await Self.get(server.url("/echo"), on: session) == "plain=1")
    }

    @Test func anOversizedCookieIsIgnoredAndAnOversizedAttributeToo() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        _ = await Self.get(server.url("/oversized"), on: session)
        #expect(await Self.get(server.url("/echo"), on: session) == "small=1", "the 2,000-byte Domain is ignored: host-only")
        #expect(try Self.stored(in: session).map(\.hostOnly) == [true])
    }

    @Test func repeatedSetCookieFieldsAreReadWithTheirExpiresDates() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        _ = await Self.get(server.url("/joined"), on: session)
        #expect(await Self.get(server.url("/echo"), on: session) == "dated=1; plain=2")
        let dated = try Self.stored(in: session).first { $0.name == "dated" }
        #expect(dated?.expires != nil)
    }

    @Test func aFloodOfCookiesKeepsTheCapsAndTheHeaderBounded() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let limits = CookieJar.Limits()
        for round in 0..<20 {
            _ = await Self.get(server.url("/flood?round=\(round)"), on: session)
            #expect(try Self.stored(in: session).count == limits.perSite)
            let size = await Self.get(server.url("/size"), on: session).flatMap { Int($0) }
            #expect(size.map { $0 > 0 && $0 <= limits.headerSize } == true)
        }
        // Big cookies: 180 of 4,000 bytes are kept, but the header stays under its cap.
        for round in 0..<12 {
            _ = await Self.get(server.url("/flood?round=big\(round)&count=15&size=4000"), on: session)
        }
        #expect(try Self.stored(in: session).count == limits.perSite)
        let size = try #require(await Self.get(server.url("/size"), on: session).flatMap { Int($0) })
        #expect(size <= limits.headerSize && size > limits.headerSize - 4_100)
    }
}
