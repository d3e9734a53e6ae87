import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing
@testable import DeferredQueue

@Suite("Cookies: kept by the session, sent on every hop, never written to disk")
struct CookieTests {
    static func server() throws -> LoopbackServer {
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
        func cookie(_ properties: [HTTPCookiePropertyKey: Any]) throws -> HTTPCookie {
            try #require(HTTPCookie(properties: properties))
        }
        let hostOnly = try cookie([.name: "a", .value: "1", .domain: "example.com", .path: "/app"])
        let url = { (string: String) in URL(string: string)! }
        #expect(InMemoryCookieStore.matches(hostOnly, url("http://example.com/app")))
        #expect(InMemoryCookieStore.matches(hostOnly, url("http://example.com/app/x")))
        #expect(!InMemoryCookieStore.matches(hostOnly, url("http://example.com/application")))
        #expect(!InMemoryCookieStore.matches(hostOnly, url("http://sub.example.com/app")))
        let domain = try cookie([.name: "b", .value: "2", .domain: ".example.com", .path: "/"])
        #expect(InMemoryCookieStore.matches(domain, url("http://sub.example.com/")))
        #expect(!InMemoryCookieStore.matches(domain, url("http://badexample.com/")))
        let secure = try cookie([.name: "c", .value: "3", .domain: "example.com", .path: "/", .secure: "TRUE"])
        #expect(!InMemoryCookieStore.matches(secure, url("http://example.com/")))
        #expect(InMemoryCookieStore.matches(secure, url("https://example.com/")))
    }
}
