import Foundation
@testable import HTTPDemo
import LoopbackServer
import Testing

/// What a hostile server or a pasted command line could make the demo print:
/// nothing that moves the cursor, recolours, reorders or hides text, on
/// stdout or stderr, in any mode; no password; no response past 16 MiB.
@Suite("HTTPDemo: hostile text never reaches the terminal")
struct HostileOutputTests {
    static let page = "https://example.com/articles/1"

    /// A title with a bidi override, zero-width and byte-order characters, a
    /// line separator, an 8-bit CSI, DEL and an escape sequence; a user of
    /// one letter with 100 stacked accents.
    static let title = "Safe\u{202E}txt.exe\u{200B}\u{FEFF}\u{2028}\u{9B}2J\u{7F}\u{1B}[31m"
    static let zalgo = "a" + String(repeating: "\u{301}", count: 100)

    private func entry() throws -> String {
        let object: [String: Any] = [
            "eid": "1", "title": Self.title, "count": 1, "entry_url": "https://bookmarks.example/e",
            "bookmarks": [["user": Self.zalgo, "tags": ["\u{202E}t"], "timestamp": "2024/01/02 03:04", "comment": "c\u{2066}d"]],
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// The demo run with `arguments` against a server answering the hostile entry; it succeeds.
    private func runOnTheHostileEntry(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> DemoRun {
        let json = try entry()
        let (server, endpoint) = try server { _ in .json(json) }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint] + arguments + [Self.page])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)", sourceLocation: sourceLocation)
        return run
    }

    private func server(_ reply: @escaping @Sendable (ServerRequest) -> Reply) throws -> (LoopbackServer, String) {
        let server = try LoopbackServer { request in
            request.path == "/entry/json/" ? reply(request) : .text("no route", status: 404)
        }
        return (server, server.url("/entry/json/").absoluteString)
    }

    /// Whether `text` holds a scalar a terminal would act on or not show,
    /// other than the newlines that end its lines.
    static func hidesOrControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            guard scalar != "\n" else { return false }
            return [.control, .format, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
        }
    }

    @Test func theTableShowsInvisibleAndBidiCharactersAsSpaces() async throws {
        let run = try await runOnTheHostileEntry(["--width", "100"])
        #expect(!Self.hidesOrControls(run.stdout), "\(run.stdout.debugDescription)")
        #expect(run.stdout.contains("Title:     Safe txt.exe    2J  [31m"))
        #expect(run.stdout.contains("\u{FFFD}"), "a character of a hundred stacked marks shows as one replacement character")
        #expect(!run.stdout.contains(Self.zalgo))
    }

    @Test func verboseQuotesTheServerPrintably() async throws {
        let run = try await runOnTheHostileEntry(["--verbose"])
        let traced = run.stderr.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(traced.count == 3, "\(run.stderr.debugDescription)")
        #expect(!Self.hidesOrControls(run.stderr), "\(run.stderr.debugDescription)")
        #expect(traced.last?.contains("\"Safe txt.exe    2J  [31m\"") == true, "\(traced)")
    }

    /// The same data, escaped: what a JSON reader gets is the server's text.
    @Test func jsonModeEscapesWhatTheTerminalWouldActOn() async throws {
        let run = try await runOnTheHostileEntry(["--json"])
        #expect(!Self.hidesOrControls(run.stdout), "\(run.stdout.debugDescription)")
        #expect(run.stdout.contains(#"Safe\u202etxt.exe\u200b\ufeff\u2028\u009b2J\u007f\u001b[31m"#), "\(run.stdout)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(parsed["title"] as? String == Self.title)
        let bookmark = try #require((parsed["bookmarks"] as? [[String: Any]])?.first)
        #expect(bookmark["user"] as? String == Self.zalgo, "marks that are no control stay as they are")
        #expect(bookmark["comment"] as? String == "c\u{2066}d")
    }

    /// The parser's message quotes the character it stopped at.
    @Test func anErrorQuotingTheBodyIsPrintable() async throws {
        let (server, endpoint) = try server { _ in .json("\u{9B}2J\u{202E}") }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, Self.page])
        #expect(run.exitCode == 7, "stderr: \(run.stderr)")
        #expect(run.stderr.hasPrefix("error: ") && run.stderr.contains("not JSON"))
        #expect(!Self.hidesOrControls(run.stderr), "\(run.stderr.debugDescription)")
    }

    @Test func aPastedPageURLIsEchoedPrintably() async throws {
        let (server, endpoint) = try server { _ in .json("null") }
        defer { server.shutdown() }
        let page = "http://a.example/\u{1B}[2J\u{1B}]8;;http://evil.example/\u{07}x"
        let run = try await DemoRun.run(["--endpoint", endpoint, page])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        #expect(run.stdout == "No bookmarks yet for http://a.example/ [2J ]8;;http://evil.example/ x\n")
    }

    @Test func aPasswordInTheEndpointIsNeverPrinted() async throws {
        let (server, endpoint) = try server { _ in .text("boom", status: 500) }
        defer { server.shutdown() }
        let withPassword = endpoint.replacingOccurrences(of: "http://", with: "http://user:S3cret@")
        let run = try await DemoRun.run(["--endpoint", withPassword, Self.page])
        #expect(run.exitCode == 6, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("http://user:***@127.0.0.1"), "\(run.stderr)")
        #expect(!run.stderr.contains("S3cret"))
        let token = endpoint.replacingOccurrences(of: "http://", with: "http://T0ken@")
        let tokenRun = try await DemoRun.run(["--endpoint", token, Self.page])
        #expect(tokenRun.stderr.contains("http://***@127.0.0.1") && !tokenRun.stderr.contains("T0ken"), "\(tokenRun.stderr)")
    }

    /// The endpoint is valid: the message names the redirect's target.
    @Test func aRedirectToAnInvalidURLNamesIt() async throws {
        let (server, endpoint) = try server { _ in .redirect(to: "http://127.0.0.1:99999/x") }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, Self.page])
        #expect(run.exitCode == 8, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("redirects to an invalid URL 'http://127.0.0.1:99999/x'"), "\(run.stderr)")
        #expect(!run.stderr.contains("invalid URL 'http://127.0.0.1:\(server.port)"))
    }

    /// Not a raw error number: what went wrong, in words.
    @Test(arguments: [
        (Reply.raw(Data("HTTP/1.1 2OO OK\r\nContent-Length: 2\r\n\r\n{}".utf8)), "answered with a malformed response"),
        (Reply.response(status: 200, headers: [("Content-Encoding", "gzip")], body: Data("not gzip".utf8)), "cannot be decoded"),
    ])
    func aMalformedResponseIsSaidToBeOne(reply: Reply, message: String) async throws {
        let (server, endpoint) = try server { _ in reply }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, Self.page])
        #expect(run.exitCode == 8, "stderr: \(run.stderr)")
        #expect(run.stderr.contains(message) && !run.stderr.contains("error -"), "\(run.stderr)")
    }

    /// A body dripping a byte every 0.2 s never leaves `--timeout 1` idle,
    /// and would take 200 s: it ends at ten times the timeout.
    @Test func aDrippingBodyEndsAtTenTimesTheTimeout() async throws {
        let (server, endpoint) = try server { _ in
            .trickle(headers: [("Content-Type", "application/json")], body: Data(repeating: 0x20, count: 1000), chunkSize: 1, interval: 0.2)
        }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, "--timeout", "1", Self.page])
        #expect(run.exitCode == 5, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("timed out waiting for"), "\(run.stderr)")
    }

    /// An entry of thousands of bookmarks is a few hundred KiB; a body past
    /// 16 MiB (here a small gzip that inflates to 32 MiB) is refused as it arrives.
    @Test func aBodyPastSixteenMebibytesIsRefused() async throws {
        let (server, endpoint) = try server { _ in .gzip(decodedLength: 32 << 20) }
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, Self.page])
        #expect(run.exitCode == 8, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("too large (over 16 MiB)"), "\(run.stderr)")
    }
}
