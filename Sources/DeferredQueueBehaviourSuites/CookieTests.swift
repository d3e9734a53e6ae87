import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Cookies: kept by the session, sent on every hop, never written to disk")
public struct CookieTests {
    public static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/login":
                return .response(status: 302, headers: [("Location", "/home"), ("Set-Cookie", "session=abc; Path=/")])
            case "/set":
                return .response(status: 200, headers: [("Set-Cookie", "theme=dark; Path=/")], body: Data("ok".utf8))
            default:
                return .text(request.header("Cookie") ?? "(none)")
            }
        }
    }

    // URLSession on Linux does not send a cookie set by a 3xx on the next hop (#5294).
    @Test func aCookieSetByARedirectIsSentOnTheNextHop() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await response(within: 120) {
            session.request(server.url("/login")).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "session=abc")
    }

    @Test func cookiesAreSentOnLaterRequestsOfTheSameSessionOnly() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        _ = await response(within: 120) { session.request(server.url("/set")).response(queue: handlerQueue, completionHandler: $0) }
        let later = await response(within: 120) { session.request(server.url("/echo")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(later?.value == "theme=dark")
        let other = TestTransport.makeSession()
        let elsewhere = await response(within: 120) { other.request(server.url("/echo")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(elsewhere?.value == "(none)", "sessions do not share cookies")
    }

    /// Where the transport keeps fields apart (AsyncHTTPClient), each
    /// `Set-Cookie` field is one cookie: a comma in a value (a server
    /// reflecting input into it) sets no second one. URLSession joins
    /// repeated fields with ", ", so there the value is split at a comma
    /// that starts a `name=` pair. A comma in an `Expires` date is a date's
    /// on both.
    @Test func aCommaInACookiesValueSetsNoSecondCookieWhereFieldsStayApart() async throws {
        let server = try LoopbackServer { request in
            guard request.path == "/set" else { return .text(request.header("Cookie") ?? "(none)") }
            return .response(status: 200, headers: [
                ("Set-Cookie", "reflected=1, injected=2; Path=/"),
                ("Set-Cookie", "dated=3; Path=/; Expires=Wed, 09 Jun 2100 10:18:14 GMT"),
            ], body: Data("ok".utf8))
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        _ = await response(within: 120) { session.request(server.url("/set")).response(queue: handlerQueue, completionHandler: $0) }
        let later = await response(within: 120) { session.request(server.url("/echo")).responseString(queue: handlerQueue, completionHandler: $0) }
        let sent = (later?.value ?? "").components(separatedBy: "; ").sorted()
        let expected = session.transport is URLSessionTransport
            ? ["dated=3", "injected=2", "reflected=1"] : ["dated=3", "reflected=1, injected=2"]
        #expect(sent == expected, "\(TestTransport.name): \(String(describing: later?.value))")
    }

    @Test func aCallersCookieHeaderWins() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        _ = await response(within: 120) { session.request(server.url("/set")).response(queue: handlerQueue, completionHandler: $0) }
        let result = await response(within: 120) {
            session.request(server.url("/echo"), headers: [HTTPHeader(name: "Cookie", value: "mine=1")])
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "mine=1")
    }

    @Test func cookieMatchingFollowsDomainPathAndSecure() throws {
        func cookie(_ domain: String, hostOnly: Bool, path: String = "/", secure: Bool = false) -> StoredCookie {
            StoredCookie(name: "a", value: "1", domain: domain, hostOnly: hostOnly, path: path, secure: secure, httpOnly: false, expires: nil)
        }
        func sends(_ cookie: StoredCookie, _ string: String) throws -> Bool {
            let url = try #require(URL(string: string))
            let host = try #require(CookieRules.canonicalHost(of: url))
            return CookieRules.shouldSend(
                cookie, host: host, path: CookieRules.requestPath(of: url), secure: CookieRules.isSecure(url), now: Date()
            )
        }
        let hostOnly = cookie("example.com", hostOnly: true, path: "/app")
        #expect(try sends(hostOnly, "http://example.com/app"))
        #expect(try sends(hostOnly, "http://example.com/app/x"))
        #expect(try !sends(hostOnly, "http://example.com/application"))
        #expect(try !sends(hostOnly, "http://sub.example.com/app"))
        let domain = cookie("example.com", hostOnly: false)
        #expect(try sends(domain, "http://sub.example.com/"))
        #expect(try !sends(domain, "http://badexample.com/"))
        let secure = cookie("example.com", hostOnly: true, secure: true)
        #expect(try !sends(secure, "http://example.com/"))
        #expect(try sends(secure, "https://example.com/"))
    }
}
