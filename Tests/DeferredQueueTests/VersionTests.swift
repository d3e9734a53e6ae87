import Foundation
import Testing
@testable import DeferredQueue

/// The version is written once in code; the README's install line and the
/// changelog's latest release must say the same.
@Suite("The version: one truth")
struct VersionTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func theVersionIsSemantic() {
        #expect(DeferredQueueInfo.version.range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression) != nil)
    }

    @Test func theReadmeInstallLineNamesTheVersion() throws {
        let readme = try Self.text("README.md")
        let lines = readme.split(separator: "\n").filter { $0.contains(".package(url:") && $0.contains("DeferredQueue") }
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.contains(#"from: "\#(DeferredQueueInfo.version)")"#), "\(line)")
        }
    }

    @Test func theChangelogsLatestReleaseIsTheVersion() throws {
        let changelog = try Self.text("CHANGELOG.md")
        // `## [x.y.z] - date` headings, newest first; `## [Unreleased]` is not one.
        let released = changelog.split(separator: "\n")
            .filter { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
            .compactMap { $0.dropFirst(4).split(separator: "]").first.map(String.init) }
        #expect(released.first == DeferredQueueInfo.version)
    }

    @Test func theUserAgentCarriesTheVersion() {
        #expect(DefaultHeaders.userAgent.hasSuffix(" DeferredQueue/\(DeferredQueueInfo.version)"))
    }
}
