@testable import HTTPDemo
import Testing

@Suite("HTTPDemo: the entry API URL")
struct EntryURLTests {
    static let page = "http://a.example/x?y=1&z=日 +"
    static let encoded = "http%3A%2F%2Fa.example%2Fx%3Fy%3D1%26z%3D%E6%97%A5%20%2B"

    @Test func thePageIsPercentEncodedIntoTheURLItem() throws {
        let url = try HTTPDemo.entryURL(endpoint: "https://bookmarks.example/entry/json/", page: Self.page)
        #expect(url == "https://bookmarks.example/entry/json/?url=\(Self.encoded)")
    }

    @Test(arguments: [
        ("https://bookmarks.example/entry/json/?", "https://bookmarks.example/entry/json/?url="),
        ("https://bookmarks.example/entry/json/?&", "https://bookmarks.example/entry/json/?url="),
        ("https://bookmarks.example/entry/json/?a=1&&", "https://bookmarks.example/entry/json/?a=1&url="),
        ("https://bookmarks.example/entry/json/?url=old&a=%2F", "https://bookmarks.example/entry/json/?a=%2F&url="),
        ("https://bookmarks.example/entry/json/?key#top", "https://bookmarks.example/entry/json/?key&url="),
    ])
    func anEndpointsOwnQueryIsKeptWithoutEmptyItems(_ endpoint: String, _ expectedPrefix: String) throws {
        let url = try HTTPDemo.entryURL(endpoint: endpoint, page: Self.page)
        #expect(url.hasPrefix(expectedPrefix + Self.encoded), "\(url)")
        #expect(!url.contains("?&") && !url.contains("&&"))
    }
}
