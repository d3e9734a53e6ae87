import DeferredQueueBehaviourSuites
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Cookies on URLSession: never in the shared file, a caller's storage honoured")
struct URLSessionCookieTests {
    // On Linux `HTTPCookieStorage.shared`, the default configuration's store, is
    // a file under $HOME/.local/share/ that other programs read.
    @Test func theDefaultSessionKeepsCookiesInMemoryOnly() async throws {
        let server = try CookieTests.server()
        defer { server.shutdown() }
        let session = Session(configuration: .default)
        #if canImport(FoundationNetworking)
        #expect(session.cookieStore is InMemoryCookieStore)
        #endif
        let transport = try #require(session.transport as? URLSessionTransport)
        #expect(transport.urlSession.configuration.httpCookieStorage == nil, "URLSession itself keeps no cookies")
        #expect(transport.urlSession.configuration.httpShouldSetCookies == false)
        #expect(transport.urlSession.configuration.httpCookieAcceptPolicy == .never, "corelibs parses no header for cookies")
        _ = await response(within: 120) { session.request(server.url("/set")).response(queue: handlerQueue, completionHandler: $0) }
        #if canImport(FoundationNetworking)
        #expect(HTTPCookieStorage.shared.cookies(for: server.url("/"))?.isEmpty ?? true)
        #endif
    }

    @Test func aCallersCookieStorageIsUsed() async throws {
        let server = try CookieTests.server()
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.ephemeral
        let storage = try #require(configuration.httpCookieStorage)
        let session = Session(configuration: configuration)
        _ = await response(within: 120) { session.request(server.url("/set")).response(queue: handlerQueue, completionHandler: $0) }
        #expect(storage.cookies(for: server.url("/"))?.map(\.name) == ["theme"])
    }

    // corelibs' cookies(for:) sends Secure cookies over http and ignores Path.
    @Test func aCallersCookieStorageIsReadAndWrittenUnderTheSessionsRules() async throws {
        let server = try HostileCookieTests.server()
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.ephemeral
        let storage = try #require(configuration.httpCookieStorage)
        let host = try #require(server.url("/").host)
        storage.setCookie(try CallerCookieStorageTests.cookie("secret", domain: host, secure: true))
        storage.setCookie(try CallerCookieStorageTests.cookie("admin", domain: host, path: "/admin"))
        let session = Session(configuration: configuration)
        #expect(await HostileCookieTests.get(server.url("/echo"), on: session) == "(none)")
        #expect(await HostileCookieTests.get(server.url("/admin/x"), on: session) == "admin=1")
        _ = await HostileCookieTests.get(server.url("/secure"), on: session)
        _ = await HostileCookieTests.get(server.url("/plant?domain=localhost"), on: session)
        #expect(storage.cookies?.map(\.name).sorted() == ["admin", "plain", "secret"], "refused cookies are never written")
    }
}
