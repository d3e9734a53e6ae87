import Foundation
@testable import HTTPDemo
import LoopbackServer
import Testing

/// The spinner, seen the way a terminal sees it: the demo runs on a
/// pseudo-terminal against a server that answers late.
@Suite("HTTPDemo: the spinner")
struct SpinnerTests {
    static let frames = Set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    /// A server that answers the entry path after `delay` seconds; the
    /// spinner starts after one.
    private func slowServer(_ delay: Double) throws -> (LoopbackServer, String) {
        let server = try LoopbackServer { request in
            request.path == "/entry/json/" ? .delayed(delay, .json(HTTPDemoTests.entryJSON)) : .text("no route", status: 404)
        }
        return (server, server.url("/entry/json/").absoluteString)
    }

    @Test func theSpinnerRedrawsOneLineThatFitsANarrowTerminal() async throws {
        let (server, endpoint) = try slowServer(3)
        defer { server.shutdown() }
        let columns = 40
        let run = try await DemoRun.run(["--endpoint", endpoint, HTTPDemoTests.page], stdio: .terminal(columns: columns))
        #expect(run.exitCode == 0, "output: \(run.stdout)")
        let lines = run.stdout.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        let spinnerLines = lines.filter { $0.contains { Self.frames.contains($0) } }
        #expect(spinnerLines.count == 1, "every frame redraws the same line: \(spinnerLines)")
        let frames = spinnerLines.first.map { $0.split(separator: "\r").filter { $0.contains { Self.frames.contains($0) } } } ?? []
        // Frames come every 0.1 s from 1 s on: a reply 3 s late leaves two
        // seconds of margin for a second one on a loaded machine.
        #expect(frames.count >= 2, "the spinner redrew its line: \(frames)")
        for frame in frames {
            #expect(frame.hasSuffix("\u{1B}[K"), "each frame erases the rest of its line")
            #expect(frame.contains("fetching http://127.0.0.1"), "\(frame)")
            // One column short: a terminal may wrap on writing the last one.
            #expect(TextWidth.of(frame.dropLast(3)) < columns, "a frame never wraps: \(frame)")
        }
        for line in lines {
            for drawn in line.split(separator: "\r") {
                let visible = drawn.replacingOccurrences(of: "\u{1B}[K", with: "")
                #expect(TextWidth.of(visible) <= columns, "nothing wraps on a \(columns)-column terminal: \(visible)")
            }
        }
        #expect(run.stdout.contains("\r\u{1B}[KTitle:     Queues all the way down"), "the spinner's line is cleared before the output")
    }

    @Test func noSpinnerIsDrawnIntoAPipe() async throws {
        let (server, endpoint) = try slowServer(1.8)
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, HTTPDemoTests.page])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr.debugDescription)")
        #expect(!run.stdout.contains { Self.frames.contains($0) || $0 == "\r" || $0 == "\u{1B}" })
    }

    @Test func noSpinnerIsDrawnWhenStdoutIsAPipe() async throws {
        // `HTTPDemo … | less`: stderr is still the terminal, but the output
        // is going somewhere else, and a script may be reading it.
        let (server, endpoint) = try slowServer(1.8)
        defer { server.shutdown() }
        let run = try await DemoRun.run(["--endpoint", endpoint, HTTPDemoTests.page], stdio: .stderrOnTerminal(columns: 80))
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("Title:     Queues all the way down"))
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr.debugDescription)")
    }

    @Test(arguments: [1, 2, 10, 40, 80])
    func aFrameIsNarrowerThanTheTerminal(_ columns: Int) {
        let label = "fetching https://b.hatena.ne.jp/entry/json/?url=https%3A%2F%2F日本語.example%2F"
        let line = ProgressIndicator.line(frame: 3, seconds: 12.34, label: label, columns: columns)
        #expect(TextWidth.of(line) <= max(1, columns - 1))
        if columns >= 12 { #expect(line.hasPrefix("⠸ 12.3 s  "), "the time is kept: \(line)") }
    }
}
