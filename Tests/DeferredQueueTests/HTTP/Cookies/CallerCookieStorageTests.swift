import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

@Suite("A caller's HTTPCookieStorage is written and read under the session's rules")
struct CallerCookieStorageTests {
    static func makeStore() throws -> (SystemCookieStore, HTTPCookieStorage) {
        let storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
        return (SystemCookieStore(storage: storage), storage)
    }

    static func response(_ url: String, setCookie: String) throws -> ResponseHead {
        let url = try #require(URL(string: url))
        return ResponseHead(try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Set-Cookie": setCookie])))
    }

    static func cookie(_ name: String, domain: String, path: String = "/", secure: Bool = false) throws -> HTTPCookie {
        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: "1", .domain: domain, .path: path]
        if secure { properties[.secure] = "TRUE" }
        return try #require(HTTPCookie(properties: properties))
    }

    @Test func onlyCookiesThatPassTheRulesAreWritten() throws {
        let (store, storage) = try Self.makeStore()
        let joined = "a=1; Domain=com, b=1; Domain=localhost, c=1; Secure, d=1; Domain=example.com; Path=/, e=" + String(repeating: "x", count: 5_000)
        store.storeCookies(from: try Self.response("http://www.example.com/", setCookie: joined))
        let written = try #require(storage.cookies)
        #expect(written.map(\.name) == ["d"])
        #expect(store.cookieHeader(for: try #require(URL(string: "http://api.example.com/x"))) == "d=1")
    }

    @Test func itsCookiesAreSentByOurMatchingPathAndSecureHonoured() throws {
        let (store, storage) = try Self.makeStore()
        storage.setCookie(try Self.cookie("admin", domain: "example.com", path: "/admin"))
        storage.setCookie(try Self.cookie("secret", domain: "example.com", secure: true))
        storage.setCookie(try Self.cookie("wide", domain: ".example.com"))
        storage.setCookie(try Self.cookie("other", domain: "example.org"))
        let url = { (string: String) in try #require(URL(string: string)) }
        #expect(store.cookieHeader(for: try url("http://example.com/")) == "wide=1")
        #expect(store.cookieHeader(for: try url("http://example.com/admin/users")) == "admin=1; wide=1")
        #expect(store.cookieHeader(for: try url("http://example.com/administrator")) == "wide=1")
        let secure = store.cookieHeader(for: try url("https://example.com/"))?.components(separatedBy: "; ")
        #expect(Set(secure ?? []) == ["secret=1", "wide=1"])
        #expect(store.cookieHeader(for: try url("http://www.example.com/admin")) == "wide=1", "a domain without a dot is host-only")
    }

    @Test func anInsecureResponseCannotReplaceASecureCookieInTheStorage() throws {
        let (store, storage) = try Self.makeStore()
        store.storeCookies(from: try Self.response("https://example.com/", setCookie: "token=good; Secure; Path=/"))
        store.storeCookies(from: try Self.response("http://example.com/", setCookie: "token=evil; Path=/"))
        #expect(storage.cookies?.map(\.value) == ["good"])
        store.storeCookies(from: try Self.response("https://example.com/", setCookie: "token=gone; Secure; Path=/; Max-Age=0"))
        #expect(storage.cookies?.isEmpty == true)
    }
}
