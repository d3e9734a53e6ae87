import Foundation
@testable import HTTPDemo
import LoopbackServer
import Testing

/// `--width N` is a promise about every line printed, Japanese text included.
@Suite("HTTPDemo: every line fits --width")
struct OutputWidthTests {
    /// Wide user names and tags, long comments, a long title and URLs.
    static let entryJSON = #"""
    {"eid": "42", "title": "とても長いタイトル: Alamofireの非同期処理を支えるサスペンドされたキュー - Hatena Developer Blog", "count": 9,
     "url": "https://example.com/articles/1?lang=ja&utm_source=a-very-long-tracking-value",
     "entry_url": "https://bookmarks.example/entry/s/example.com/articles/1?lang=ja&utm_source=a-very-long-tracking-value",
     "bookmarks": [
       {"user": "a_user_with_a_name_longer_than_twenty", "tags": ["swift", "gcd", "concurrency", "あとで読む", "queues"],
        "timestamp": "2024/01/02 03:04", "comment": "A comment long enough to need cutting at every width we test here."},
       {"user": "日本語ユーザー名前", "tags": ["日本語のタグ", "キュー"], "timestamp": "2024/01/02 05:06",
        "comment": "とても長いコメントです。とても長いコメントです。とても長いコメントです。"},
       {"user": "bob", "tags": [], "timestamp": "2024/01/03 07:08", "comment": ""}
     ]}
    """#

    @Test(arguments: 40...64)
    func everyPrintedLineFitsTheWidth(_ width: Int) async throws {
        let server = try LoopbackServer { _ in .json(Self.entryJSON) }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", server.url("/entry/json/").absoluteString, "--width", "\(width)", HTTPDemoTests.page])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("DATE") } && lines.count >= 8, "\(run.stdout)")
        for line in lines {
            #expect(TextWidth.of(line) <= width, "\(TextWidth.of(line)) columns: \(line)")
        }
        #expect(lines.contains { TextWidth.of($0) >= width - 1 }, "the table uses the width it is given")
    }

    @Test func theOfflineNoticeIsWrappedToo() async throws {
        let run = try await DemoRun.run(["--offline", "--width", "40"])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.hasPrefix("(offline: an embedded sample entry"))
        for line in run.stdout.split(separator: "\n") {
            #expect(TextWidth.of(line) <= 40, "\(line)")
        }
    }
}
