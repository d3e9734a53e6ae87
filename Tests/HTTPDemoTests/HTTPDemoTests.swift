import Foundation
@testable import HTTPDemo
import LockSupport
import LoopbackServer
import Synchronization
import Testing

/// The demo run end to end, as a process, against a loopback server.
@Suite("HTTPDemo: the command line, end to end")
struct HTTPDemoTests {
    static let page = "https://example.com/articles/1?lang=ja"

    static let entryJSON = #"""
    {"eid": 123, "title": "Queues all the way down", "count": 5, "url": "https://example.com/articles/1?lang=ja",
     "entry_url": "https://bookmarks.example/entry/s/example.com/articles/1",
     "bookmarks": [
       {"user": "alice", "tags": ["swift", "gcd"], "timestamp": "2024/01/02 03:04", "comment": "Great read"},
       {"user": "bob", "tags": [], "timestamp": "2024/01/02 05:06", "comment": ""},
       {"user": "日本語ユーザー", "tags": ["あとで読む"], "timestamp": "2024/01/03 07:08",
        "comment": "とても長いコメントです。とても長いコメントです。とても長いコメントです。とても長いコメントです。とても長いコメントです。"},
       {"user": "broken-bookmark-without-fields"},
       {"tags": ["no user: skipped"]}
     ]}
    """#

    /// A server answering the entry path with `reply`, recording what it was asked.
    private func server(_ reply: @escaping @Sendable (ServerRequest) -> Reply) throws -> (LoopbackServer, String) {
        let server = try LoopbackServer { request in
            request.path == "/entry/json/" ? reply(request) : .text("no route", status: 404)
        }
        return (server, server.url("/entry/json/").absoluteString)
    }

    @Test func printsTheEntryAndAReadableTable() async throws {
        let seen = SeenRequests()
        let (server, endpoint) = try server { request in
            seen.record(request)
            return .json(Self.entryJSON)
        }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, "--width", "80", Self.page])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("Title:     Queues all the way down"))
        #expect(run.stdout.contains("Bookmarks: 5 (showing 4 listed)"))
        #expect(run.stdout.contains("Entry:     https://bookmarks.example/entry/s/example.com/articles/1"))
        let rows = run.stdout.split(separator: "\n").map(String.init)
        let header = try #require(rows.firstIndex { $0.hasPrefix("DATE") })
        #expect(rows[header + 1].hasPrefix("2024/01/02 03:04  alice"))
        #expect(rows[header + 1].contains("swift, gcd"))
        #expect(rows[header + 2].contains("bob") && rows[header + 2].hasSuffix("-"), "an empty comment shows as -")
        #expect(rows[header + 4].contains("broken-bookmark"), "a bookmark missing optional fields is kept")
        for row in rows[header...] {
            #expect(TextWidth.of(row) <= 80, "wide Japanese text is cut to the width: \(row)")
        }
        #expect(rows[header + 3].hasSuffix("…"))
        let request = try #require(seen.requests.first)
        #expect(request.query["url"] == Self.page, "the page URL is percent-encoded into ?url=")
        #expect(request.header("User-Agent")?.hasPrefix("HTTPDemo/") == true)
    }

    @Test func verboseShowsEachChainedHandlerInOrder() async throws {
        let (server, endpoint) = try server { _ in .json(Self.entryJSON) }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, "--verbose", Self.page])
        #expect(run.exitCode == 0)
        let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("[1] .response") && lines[0].contains("HTTP 200"))
        #expect(lines[1].hasPrefix("[2] .responseString") && lines[1].contains("bytes"))
        #expect(lines[2].hasPrefix("[3] .responseDecodable") && lines[2].contains("Queues all the way down"))
    }

    struct EmptyAnswer: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let reply: Reply
    }

    static let emptyAnswers = [
        EmptyAnswer(testDescription: "null", reply: .json("null")),
        EmptyAnswer(testDescription: "null among spaces", reply: .json(" null\n")),
        EmptyAnswer(testDescription: "an empty body", reply: .json("")),
        EmptyAnswer(testDescription: "a blank body", reply: .json(" \r\n")),
        EmptyAnswer(testDescription: "204 No Content", reply: .response(status: 204)),
    ]

    @Test(arguments: emptyAnswers)
    func aPageWithoutBookmarksIsNotAnError(_ answer: EmptyAnswer) async throws {
        let (server, endpoint) = try server { _ in answer.reply }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, Self.page])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        #expect(run.stdout == "No bookmarks yet for \(Self.page)\n")
        #expect(run.stderr.isEmpty)
    }

    @Test func jsonModePrintsTheRawEntryPrettyPrinted() async throws {
        let (server, endpoint) = try server { _ in .json(Self.entryJSON) }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, "--json", Self.page])
        #expect(run.exitCode == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(parsed?["title"] as? String == "Queues all the way down")
        #expect(run.stdout.contains("\n  \"bookmarks\": ["))
    }

    @Test func limitCapsTheTable() async throws {
        let (server, endpoint) = try server { _ in .json(Self.entryJSON) }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, "--limit", "1", Self.page])
        let rows = run.stdout.split(separator: "\n")
        let header = try #require(rows.firstIndex { $0.hasPrefix("DATE") })
        #expect(rows.count == header + 2)
    }

    @Test func offlineModeWorksWithoutTheInternet() async throws {
        let run = try await DemoRun.run(["--offline"])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.hasPrefix("(offline: an embedded sample entry"))
        #expect(run.stdout.contains("Title:     Alamofireの非同期処理を支えるサスペンドされたキュー"))
        #expect(run.stdout.contains("Bookmarks: 412 (showing 10 listed)"))
        #expect(run.stdout.contains("queue_watcher"))
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        let name: String
        let reply: Reply?
        let arguments: [String]
        let exitCode: Int32
        let message: String
        var testDescription: String { name }
    }

    static let failures: [Failure] = [
        Failure(name: "malformed JSON", reply: .json(#"{"title": "cut"#), arguments: [], exitCode: 7, message: "not a valid entry"),
        Failure(name: "an HTML page", reply: .text("<html>Not found</html>"), arguments: [], exitCode: 7, message: "it is not JSON"),
        Failure(name: "an object of another shape", reply: .json(#"{"foo": 1}"#), arguments: [], exitCode: 9, message: "not a Hatena Bookmark entry"),
        Failure(name: "an array", reply: .json("[1, 2]"), arguments: [], exitCode: 9, message: "got a list"),
        Failure(name: "a string", reply: .json(#""entry""#), arguments: [], exitCode: 9, message: "got a string"),
        Failure(name: "bookmarks that are no list", reply: .json(#"{"eid": "1", "bookmarks": 3}"#), arguments: [], exitCode: 9,
                message: #""bookmarks" should be a list"#),
        Failure(name: "HTTP 500", reply: .text("boom", status: 500), arguments: [], exitCode: 6, message: "HTTP 500"),
        Failure(name: "silent server", reply: .neverRespond, arguments: ["--timeout", "1"], exitCode: 5, message: "timed out"),
    ]

    @Test(arguments: failures)
    func failuresGiveOneClearLineAndTheirOwnExitCode(_ failure: Failure) async throws {
        let reply = try #require(failure.reply)
        let (server, endpoint) = try server { _ in reply }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint] + failure.arguments + [Self.page])
        #expect(run.exitCode == failure.exitCode, "stderr: \(run.stderr)")
        #expect(run.stderr.hasPrefix("error: "))
        #expect(run.stderr.contains(failure.message))
        #expect(run.stderr.contains("127.0.0.1"), "the message names the URL")
        #expect(!run.stderr.contains("Fatal error") && !run.stderr.contains("Backtrac"))
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        Self.expectSpeaksToTheUser(run.stderr)
    }

    /// Words of the library's developer-facing descriptions (methods and
    /// types to change, error domains) that a user of the CLI cannot act on.
    static func expectSpeaksToTheUser(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for developerWord in ["Decodable", "validate(", "Session(", "serializer", "EmptyResponse", "emptyResponseCodes",
                              "HTTPError", "URLError", "NSURLErrorDomain", "The operation could not be completed",
                              "issue", "cancel()", "Check the adapter"] {
            #expect(!message.contains(developerWord), "\(message)", sourceLocation: sourceLocation)
        }
    }

    @Test func aRefusedPortIsReportedAsUnreachable() async throws {
        let port = try LoopbackServer.unusedPort()
        let run = try await DemoRun.run(["--endpoint", "http://127.0.0.1:\(port)/entry/json/", Self.page])
        #expect(run.exitCode == 4, "stderr: \(run.stderr)")
        #expect(run.stderr == "error: cannot reach http://127.0.0.1:\(port)/entry/json/?url=https%3A%2F%2Fexample.com%2Farticles%2F1%3Flang%3Dja: the connection was refused\n")
        Self.expectSpeaksToTheUser(run.stderr)
    }

    @Test func controlCharactersFromTheServerNeverReachTheTerminal() async throws {
        let entry = #"{"eid": "1", "title": "Red\u001b[31m title\u0007", "count": 1, "bookmarks": [{"user": "eve\u001b[2J", "tags": ["a\tb"], "timestamp": "2024/01/02 03:04", "comment": "line\r\nnext\u001b]0;pwned\u0007"}]}"#
        let (server, endpoint) = try server { _ in .json(entry) }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, "--width", "100", Self.page])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        #expect(!run.stdout.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(run.stdout.debugDescription)")
        #expect(run.stdout.contains("Title:     Red [31m title"))
        #expect(run.stdout.contains("line next ]0;pwned"))
    }

    @Test(arguments: [["not a url"], ["ftp://example.com/x"], ["--endpoint", "nope", "https://example.com"]])
    func invalidURLsAreRejectedBeforeAnyRequest(_ arguments: [String]) async throws {
        let run = try await DemoRun.run(arguments)
        #expect(run.exitCode == 3, "stderr: \(run.stderr)")
        #expect(run.stderr.hasPrefix("error: invalid"))
    }

    @Test(arguments: [["--bogus"], ["--limit"], ["--limit", "x"], ["--timeout", "-1"], ["a", "b"], ["--offline", "--endpoint", "http://x"]])
    func badCommandLinesExitWithUsageErrors(_ arguments: [String]) async throws {
        let run = try await DemoRun.run(arguments)
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains("--help"))
    }

    @Test func helpListsOptionsAndExitCodes() async throws {
        let run = try await DemoRun.run(["--help"])
        #expect(run.exitCode == 0)
        for text in ["--offline", "--endpoint", "--json", "--limit", "--timeout", "--verbose", "--width", "EXIT CODES",
                     "0  success", "204", "7  the response is not a valid entry", "9  the response is JSON but not a Hatena Bookmark entry"] {
            #expect(run.stdout.contains(text))
        }
    }
}

/// The requests a test server received.
final class SeenRequests: Sendable {
    private let storage = Mutex<[ServerRequest]>([])
    func record(_ request: ServerRequest) { storage.withLock(owner: self) { $0.append(request) } }
    var requests: [ServerRequest] { storage.withLock(owner: self) { $0 } }
}
