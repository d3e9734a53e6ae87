// The same requests on swift-server's AsyncHTTPClient instead of URLSession.
// Run: swift run --package-path Transports/DeferredQueueAsyncHTTPClient FetchOnAsyncHTTPClient [url]
import DeferredQueue
import DeferredQueueAsyncHTTPClient

struct Entry: Decodable, Sendable { let title: String; let count: Int }

let url = CommandLine.arguments.dropFirst().first
    ?? "https://b.hatena.ne.jp/entry/json/?url=https%3A%2F%2Fwww.swift.org%2F"

// Redirects, retries, cookies and deadlines stay the session's: only the bytes move differently.
let session = Session(transport: AsyncHTTPClientTransport())
do {
    let entry = try await session.request(url).validate().serializingDecodable(Entry?.self).value
    print(entry.map { "\($0.title): \($0.count) bookmarks" } ?? "no bookmarks yet")
} catch {
    print(error)
}
