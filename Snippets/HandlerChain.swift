// Handlers chained on one request run in order, each with the response it asked for.
// Run: swift run HandlerChain [url]
import DeferredQueue

struct Entry: Decodable, Sendable { let title: String; let count: Int }

let url = CommandLine.arguments.dropFirst().first
    ?? "https://b.hatena.ne.jp/entry/json/?url=https%3A%2F%2Fwww.swift.org%2F"

// Completion handlers run on `.main` unless you pass `queue:`; the async main
// runs the main queue while it waits.
await withCheckedContinuation { done in
    request(url)
        .response { response in print("status", response.response?.statusCode ?? 0) }  // the raw outcome
        .validate()                                                                     // judges the handlers after it
        .responseDecodable(of: Entry?.self) { response in                               // `null`: nobody bookmarked it
            switch response.result {
            case .success(let entry): print(entry?.title ?? "no bookmarks yet")
            case .failure(let error): print(error)
            }
            done.resume()
        }
}
