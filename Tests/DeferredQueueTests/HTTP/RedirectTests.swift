import DeferredQueueBehaviourSuites
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// `/start` redirects with the status in the query to `/target`, which echoes the request.
private func redirectingServer(location: @escaping @Sendable (ServerRequest) -> String = { _ in "/target" }) throws -> LoopbackServer {
    try LoopbackServer { request in
        switch request.path {
        case "/start": return .redirect(to: location(request), status: Int(request.query["status"] ?? "302") ?? 302)
        case "/loop": return .redirect(to: "/loop")
        default: return .echo(request)
        }
    }
}

/// What `/target` saw, from its echo.
private struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let body: String
    let headers: [String: String]

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

@Suite("Redirects: decided by the session, the same on every transport")
struct RedirectTests {
    // URLSession on Linux re-sends a POST meeting a 307/308 with an empty body.
    @Test(arguments: [307, 308])
    func temporaryAndPermanentRedirectsKeepMethodAndBody(_ status: Int) async throws {
        let server = try redirectingServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let payload = Data(#"{"order":42}"#.utf8)
        let result = await response(within: 120) {
            session.request(server.url("/start?status=\(status)"), method: .post, headers: [.contentType("application/json")], body: payload)
                .responseDecodable(of: Echo.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value)
        #expect(echo.path == "/target")
        #expect(echo.method == "POST")
        #expect(echo.body == #"{"order":42}"#)
        #expect(echo.header("Content-Type") == "application/json")
    }

    @Test(arguments: [(303, "POST"), (302, "POST"), (301, "POST"), (303, "PUT")])
    func seeOtherAndLegacyRedirectsOfAPOSTBecomeABodylessGET(_ status: Int, _ method: String) async throws {
        let server = try redirectingServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await response(within: 120) {
            session.request(server.url("/start?status=\(status)"), method: HTTPMethod(rawValue: method),
                            headers: [.contentType("text/plain")], body: Data("payload".utf8))
                .responseDecodable(of: Echo.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value)
        #expect(echo.method == "GET")
        #expect(echo.body.isEmpty)
        #expect(echo.header("Content-Type") == nil)
    }

    // URLSession on Linux sends Authorization and Cookie to the other origin.
    @Test func aRedirectToAnotherOriginDropsCredentialHeaders() async throws {
        let target = try redirectingServer()
        defer { target.shutdown() }
        let origin = try redirectingServer { _ in target.url("/target").absoluteString }
        defer { origin.shutdown() }
        let session = TestTransport.makeSession()
        let headers: HTTPHeaders = [
            .authorization(bearerToken: "secret"), HTTPHeader(name: "Cookie", value: "session=1"),
            HTTPHeader(name: "Proxy-Authorization", value: "Basic eDp5"), HTTPHeader(name: "X-Trace", value: "7"),
        ]
        let result = await response(within: 120) {
            session.request(origin.url("/start"), headers: headers).responseDecodable(of: Echo.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value)
        #expect(echo.header("Authorization") == nil)
        #expect(echo.header("Cookie") == nil)
        #expect(echo.header("Proxy-Authorization") == nil)
        #expect(echo.header("X-Trace") == "7", "other headers follow")
    }

    @Test func aRedirectOnTheSameOriginKeepsCredentialHeaders() async throws {
        let server = try redirectingServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let headers: HTTPHeaders = [.authorization(bearerToken: "secret"), HTTPHeader(name: "Cookie", value: "session=1")]
        let result = await response(within: 120) {
            session.request(server.url("/start"), headers: headers).responseDecodable(of: Echo.self, queue: handlerQueue, completionHandler: $0)
        }
        let echo = try #require(result?.value)
        #expect(echo.header("Authorization") == "Bearer secret")
        #expect(echo.header("Cookie") == "session=1")
    }

    @Test func doNotFollowDeliversTheRedirectResponse() async throws {
        let server = try redirectingServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession(redirectHandler: .doNotFollow)
        let result = await response(within: 120) { session.request(server.url("/start")).response(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.response?.statusCode == 302)
        #expect(result?.response?.value(forHTTPHeaderField: "Location") == "/target")
    }

    @Test func aRequestsRedirectorWinsOverTheSessions() async throws {
        let server = try redirectingServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession(redirectHandler: .doNotFollow)
        let result = await response(within: 120) {
            session.request(server.url("/start")).redirect(using: .follow)
                .responseDecodable(of: Echo.self, queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value?.path == "/target")
    }

    @Test func modifyCanRewriteTheNextRequest() async throws {
        let server = try redirectingServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let seen = Recorder<Int>()
        let redirector = Redirector(behavior: .modify { next, response in
            seen.append(response.statusCode)
            var changed = next
            changed.setValue("yes", forHTTPHeaderField: "X-Redirected")
            return changed
        })
        let result = await response(within: 120) {
            session.request(server.url("/start")).redirect(using: redirector)
                .responseDecodable(of: Echo.self, queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value?.header("X-Redirected") == "yes")
        #expect(seen.events == [302])
    }

    @Test func aRedirectLoopFailsWithTooManyRedirects() async throws {
        let server = try redirectingServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await response(within: 120) { session.request(server.url("/loop")).response(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.urlError?.code == .httpTooManyRedirects)
        #expect(server.requestCount == Session.redirectLimit + 1)
    }

    @Test func theRequestPropertyShowsTheLastHop() async throws {
        let server = try redirectingServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let req = session.request(server.url("/start"))
        let result = await response(within: 120) { req.response(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.request?.url?.path == "/target")
        #expect(req.request?.url?.path == "/target")
        #expect(req.response?.statusCode == 200)
        #expect(req.retryCount == 0, "a redirect is not a retry")
    }
}
