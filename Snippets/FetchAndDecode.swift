// Fetch a page's Hatena Bookmark entry and decode it.
// Run: swift run FetchAndDecode [entry-json-url]
import DeferredQueue

struct Entry: Decodable, Sendable { let title: String; let count: Int }

let url = CommandLine.arguments.dropFirst().first
    ?? "https://b.hatena.ne.jp/entry/json/?url=https%3A%2F%2Fwww.swift.org%2F"
do {
    // Hatena answers `null` for a page nobody bookmarked: decode `Entry?`.
    let entry = try await request(url).validate().serializingDecodable(Entry?.self).value
    print(entry.map { "\($0.title): \($0.count) bookmarks" } ?? "no bookmarks yet")
} catch {
    print(error)   // an HTTPError whose description says what happened
}
