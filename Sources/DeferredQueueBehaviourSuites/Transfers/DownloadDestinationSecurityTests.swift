import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// A response a hostile server sends to name a download: a path (percent-encoded
/// as sent) and, maybe, a `Content-Disposition`.
struct HostileName: Sendable, CustomTestStringConvertible {
    let path: String
    var disposition: String?
    /// The name the file must get, when the test pins it.
    var expected: String?

    var testDescription: String { path + (disposition.map { " with Content-Disposition: \($0)" } ?? "") }
}

/// A temporary tree: `root/a/b` is where downloads go, `root/a/.bashrc` and
/// `root/.bashrc` are what an escape would overwrite, `root/a/keep` what a
/// recursive removal of the parent would delete.
struct DownloadSandbox {
    let root: URL
    var downloads: URL { root.appendingPathComponent("a/b") }
    static let original = Data("original".utf8)

    init() throws {
        root = try temporaryDirectory()
        let files = FileManager.default
        try files.createDirectory(at: root.appendingPathComponent("a/b"), withIntermediateDirectories: true)
        for sentinel in [".bashrc", "a/.bashrc", "a/keep", "x", "a/x"] {
            try Self.original.write(to: root.appendingPathComponent(sentinel))
        }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// Every sentinel still holds its original bytes.
    var sentinelsIntact: Bool {
        [".bashrc", "a/.bashrc", "a/keep", "x", "a/x"].allSatisfy {
            (try? Data(contentsOf: root.appendingPathComponent($0))) == Self.original
        }
    }

    /// The names in the downloads directory.
    var downloaded: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: downloads.path).sorted()) ?? []
    }
}

/// A server that answers every path with `payload`, with the given extra
/// headers; `/go?to=…` redirects to `to`.
func hostileServer(payload: Data, headers: [(String, String)] = []) throws -> LoopbackServer {
    try LoopbackServer { request in
        if request.path == "/go", let location = request.query["to"] { return .redirect(to: location) }
        return .response(status: 200, headers: headers + [("Content-Type", "application/octet-stream")], body: payload)
    }
}

@Suite("Download destinations: a name from the response never leaves its directory")
struct DownloadDestinationSecurityTests {
    static let payload = Data("downloaded payload".utf8)

    static let hostileNames: [HostileName] = [
        HostileName(path: "/dl/..%2F.bashrc", expected: "_.bashrc"),
        HostileName(path: "/dl/..%2f.bashrc", expected: "_.bashrc"),
        HostileName(path: "/dl/..%2F..%2Fx", expected: "_.._x"),
        HostileName(path: "/dl/..%5C..%5Cx", expected: "_.._x"),
        HostileName(path: "/dl/%2E%2E", expected: "download"),
        HostileName(path: "/dl/%2e%2e%2f%2e%2e%2fx", expected: "_.._x"),
        HostileName(path: "/dl/..%252F.bashrc", expected: "%2F.bashrc"),
        HostileName(path: "/dl/%C0%AE%C0%AE%C0%AF.bashrc", expected: "______.bashrc"),
        HostileName(path: "/dl/evil%00.txt", expected: "evil_.txt"),
        HostileName(path: "/dl/x%0A%0D.txt", expected: "x__.txt"),
        HostileName(path: "/dl/...", expected: "download"),
        HostileName(path: "/dl/%2E.%2E.", expected: "download"),
        HostileName(path: "/dl/%2Fetc%2Fpasswd", expected: "_etc_passwd"),
        HostileName(path: "/dl/gpj.%E2%80%AEexe", expected: "gpj._exe"),
        HostileName(path: "/dl/fine.txt", disposition: #"attachment; filename="/etc/passwd""#, expected: "_etc_passwd"),
        HostileName(path: "/dl/fine.txt", disposition: #"attachment; filename="../../.bashrc""#, expected: "_.._.bashrc"),
        HostileName(path: "/dl/fine.txt", disposition: "attachment; filename*=UTF-8''..%2F..%2F.bashrc", expected: "_.._.bashrc"),
        HostileName(path: "/dl/fine.txt", disposition: #"attachment; filename="..""#, expected: "fine.txt"),
        HostileName(path: "/dl/%2E%2E", disposition: #"attachment; filename="\..\.""#, expected: "download"),
        HostileName(path: "/go?to=/dl/..%252F..%252Fx", expected: "_.._x"),
    ]

    @Test(arguments: hostileNames)
    func aHostileNameLandsInsideTheDirectoryAndNothingElseChanges(_ name: HostileName) async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let server = try hostileServer(payload: Self.payload, headers: name.disposition.map { [("Content-Disposition", $0)] } ?? [])
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let destination = DownloadRequest.suggestedDownloadDestination(inDirectory: sandbox.downloads)
        let url = server.url("/").absoluteString.dropLast() + name.path
        let result = await downloadResponse {
            session.download(String(url), to: destination).responseURL(queue: handlerQueue, completionHandler: $0)
        }
        let file = try #require(result?.value, "\(String(describing: result?.error))")
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == sandbox.downloads.standardizedFileURL.path)
        #expect(try Data(contentsOf: file) == Self.payload)
        #expect(sandbox.downloaded == [file.lastPathComponent])
        if let expected = name.expected { #expect(file.lastPathComponent == expected) }
        #expect(sandbox.sentinelsIntact, "a file outside the download directory changed")
    }

    @Test(arguments: [
        HostileName(path: "/dl/report%202024.pdf", expected: "report 2024.pdf"),
        HostileName(path: "/dl/%E6%97%A5%E6%9C%AC%E8%AA%9E%E3%81%AE%E8%B3%87%E6%96%99.txt", expected: "日本語の資料.txt"),
        HostileName(path: "/dl/r%C3%A9sum%C3%A9.v2.tar.gz", expected: "résumé.v2.tar.gz"),
        HostileName(path: "/download", disposition: "attachment; filename=\"plain.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt", expected: "€ rates.txt"),
        HostileName(path: "/download", disposition: #"attachment; filename="a \"quoted\"; name.txt""#, expected: #"a "quoted"; name.txt"#),
        HostileName(path: "/download", disposition: "attachment; filename*=iso-8859-1'en'caf%E9.txt", expected: "café.txt"),
        HostileName(path: "/", expected: "download"),
    ])
    func aSafeNameIsKeptAsTheServerGaveIt(_ name: HostileName) async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let server = try hostileServer(payload: Self.payload, headers: name.disposition.map { [("Content-Disposition", $0)] } ?? [])
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let url = server.url("/").absoluteString.dropLast() + name.path
        let result = await downloadResponse {
            session.download(String(url), to: DownloadRequest.suggestedDownloadDestination(inDirectory: sandbox.downloads))
                .responseURL(queue: handlerQueue, completionHandler: $0)
        }
        let file = try #require(result?.value, "\(String(describing: result?.error))")
        #expect(file.lastPathComponent == name.expected)
        #expect(sandbox.downloaded == [name.expected ?? ""])
        #expect(try Data(contentsOf: file) == Self.payload)
    }

    /// A download's file is its owner's alone, as it is written in the
    /// shared temporary directory and where it lands (it was created with
    /// the process's default mode, 0644 with the usual umask: readable by
    /// every local user while it was written, and after).
    @Test func aDownloadsFileIsReadableByItsOwnerOnly() async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let server = try hostileServer(payload: Self.payload)
        defer { server.shutdown() }
        let result = await downloadResponse {
            TestTransport.makeSession().download(server.url("/dl/private.txt").absoluteString, to: DownloadRequest.suggestedDownloadDestination(inDirectory: sandbox.downloads))
                .responseURL(queue: handlerQueue, completionHandler: $0)
        }
        let file = try #require(result?.value, "\(String(describing: result?.error))")
        let mode = try #require(FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o777 == 0o600, "\(TestTransport.name): mode \(String(mode.intValue, radix: 8))")
    }

    @Test func aVeryLongNameIsCutToTwoHundredFiftyFiveBytesKeepingItsExtension() async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let server = try hostileServer(payload: Self.payload)
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let stem = String(repeating: "%C3%A9", count: 300)
        let result = await downloadResponse {
            session.download(server.url("/dl/\(stem).txt").absoluteString, to: DownloadRequest.suggestedDownloadDestination(inDirectory: sandbox.downloads))
                .responseURL(queue: handlerQueue, completionHandler: $0)
        }
        let file = try #require(result?.value, "\(String(describing: result?.error))")
        #expect(file.lastPathComponent.utf8.count <= 255)
        #expect(file.lastPathComponent == String(repeating: "é", count: 125) + ".txt")
    }
}
