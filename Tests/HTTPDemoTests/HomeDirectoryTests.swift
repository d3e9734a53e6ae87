import Foundation
import Testing

/// A library must not write into the user's home unasked. Run in a child
/// process with a HOME of its own, since the first use of a
/// `URLSessionConfiguration` in a process is what creates corelibs'
/// `~/.cache/org.swift.foundation.URLCache/<process>`.
@Suite("HTTPDemo: nothing written under $HOME")
struct HomeDirectoryTests {
    @Test func aRequestOnTheDefaultSessionCreatesNoCacheUnderHome() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("HTTPDemoHome-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let run = try await DemoRun.run(["--offline"], environment: ["HOME": home.path, "XDG_CACHE_HOME": nil])
        #expect(run.exitCode == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("Title:"))
        let created = FileManager.default.subpaths(atPath: home.path) ?? []
        #expect(!created.contains { $0.hasPrefix(".cache") }, "no URLCache directory: \(created)")
        #if canImport(FoundationNetworking)
        // corelibs' HTTPCookieStorage.shared, which every URLSessionConfiguration
        // names, creates an empty ~/.local/share/<directory of the executable>
        // and has no setter to avoid it; no file is written there.
        for path in created {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: home.appendingPathComponent(path).path, isDirectory: &isDirectory)
            #expect(isDirectory.boolValue, "no file is written under HOME: \(path)")
        }
        #endif
    }
}
