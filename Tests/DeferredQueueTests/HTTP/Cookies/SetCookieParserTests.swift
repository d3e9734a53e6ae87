import Foundation
import Testing
@testable import DeferredQueue

@Suite("Set-Cookie parsing follows RFC 6265bis, whatever the platform's parser accepts")
struct SetCookieParserTests {
    @Test func aNameValuePairAndItsAttributesAreRead() throws {
        let cookie = try #require(SetCookieParser.parse("id = a3fWa ; Path=/docs; Domain=.Example.COM; Secure; HttpOnly; Max-Age=60"))
        #expect(cookie.name == "id")
        #expect(cookie.value == "a3fWa")
        #expect(cookie.path == "/docs")
        #expect(cookie.domain == "example.com")
        #expect(cookie.secure && cookie.httpOnly)
        #expect(cookie.maxAge == 60)
    }

    @Test func fieldsJoinedWithCommasAreSplitButExpiresDatesStayWhole() {
        let joined = "a=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT; Path=/, b=2, c=x,y; Path=/c, d=4; expires=Thursday, 01-Jan-2099 00:00:00 GMT"
        let cookies = SetCookieParser.cookies(in: joined)
        #expect(cookies.map(\.name) == ["a", "b", "c", "d"])
        #expect(cookies.map(\.value) == ["1", "2", "x,y", "4"])
        #expect(cookies[0].expires == Date(timeIntervalSince1970: 4_116_219_494))
        #expect(cookies[2].path == "/c")
        #expect(cookies[3].expires != nil)
    }

    @Test func aCookieWhoseNameAndValueExceed4096OctetsIsIgnored() {
        #expect(SetCookieParser.parse(Substring("big=" + String(repeating: "x", count: 4094))) == nil)
        #expect(SetCookieParser.parse(Substring("big=" + String(repeating: "x", count: 4093))) != nil, "4,096 octets exactly fit")
        #expect(SetCookieParser.parse(Substring("big=" + String(repeating: "x", count: 70_000))) == nil)
    }

    @Test func anAttributeValueOver1024OctetsIsIgnored() throws {
        let long = String(repeating: "a", count: 1025)
        let cookie = try #require(SetCookieParser.parse(Substring("a=1; Domain=\(long).example.com; Path=/\(long)")))
        #expect(cookie.domain == nil)
        #expect(cookie.path == nil)
        let fits = try #require(SetCookieParser.parse(Substring("a=1; Path=/" + String(repeating: "p", count: 1023))))
        #expect(fits.path?.utf8.count == 1024)
    }

    @Test func controlCharactersEmptyCookiesAndNamelessPrefixesAreRefused() {
        #expect(SetCookieParser.parse("a=1\u{1}; Path=/") == nil)
        #expect(SetCookieParser.parse("a=\u{7F}") == nil)
        #expect(SetCookieParser.parse("=") == nil)
        #expect(SetCookieParser.parse("  ; Path=/") == nil)
        #expect(SetCookieParser.parse("=__Host-x=1") == nil)
        #expect(SetCookieParser.parse("__secure-x") == nil)
        #expect(SetCookieParser.parse("novalue")?.value == "novalue")
        #expect(SetCookieParser.parse("novalue")?.name == "")
    }

    @Test func maxAgeMustBeAnIntegerAndTheLastAttributeOfANameWins() throws {
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=-5")).maxAge == -5)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=1e3")).maxAge == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=99999999999999999999999")).maxAge == Int.max)
        #expect(try #require(SetCookieParser.parse("a=1; Path=/a; Path=relative")).path == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Domain=a.com; Domain=")).domain == "a.com")
    }

    @Test func cookieDatesAcceptTheShapesServersSendAndRefuseImpossibleOnes() {
        let expected = Date(timeIntervalSince1970: 1_623_233_894)  // 2021-06-09 10:18:14 UTC
        #expect(CookieDate.parse("Wed, 09 Jun 2021 10:18:14 GMT") == expected)
        #expect(CookieDate.parse("Wednesday, 09-Jun-21 10:18:14 GMT") == expected)
        #expect(CookieDate.parse("Wed Jun  9 10:18:14 2021") == expected)
        #expect(CookieDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(CookieDate.parse("Sat, 29 Feb 2020 00:00:00 GMT") != nil)
        #expect(CookieDate.parse("Sun, 29 Feb 2021 00:00:00 GMT") == nil)
        #expect(CookieDate.parse("Wed, 09 Jun 2021 24:00:00 GMT") == nil)
        #expect(CookieDate.parse("Wed, 09 Jun 1600 10:18:14 GMT") == nil)
        #expect(CookieDate.parse("tomorrow") == nil)
    }
}
