import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// The refusal inside a failed download, and whether the downloaded file is gone.
private func refusal(of response: DownloadResponse<URL, HTTPError>?) -> (DownloadRequest.DestinationError?, temporaryRemoved: Bool) {
    guard case .downloadedFileMoveFailed(let error, let source, _)? = response?.error else { return (nil, false) }
    let removed = source.map { !FileManager.default.fileExists(atPath: $0.path) } ?? false
    return (error as? DownloadRequest.DestinationError, removed)
}

@Suite("Download destinations: the move never follows a link, removes a directory or leaves the directory")
struct DownloadMoveSecurityTests {
    static let payload = Data("downloaded payload".utf8)

    private func download(
        _ path: String, to destination: @escaping DownloadRequest.Destination
    ) async throws -> DownloadResponse<URL, HTTPError>? {
        let server = try hostileServer(payload: Self.payload)
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        return await downloadResponse {
            session.download(server.url(path).absoluteString, to: destination).responseURL(queue: handlerQueue, completionHandler: $0)
        }
    }

    @Test func removePreviousFileNeverRemovesADirectory() async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let directory = sandbox.downloads.appendingPathComponent("report.txt")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try DownloadSandbox.original.write(to: directory.appendingPathComponent("inside"))
        let result = try await download(
            "/dl/report.txt", to: DownloadRequest.suggestedDownloadDestination(inDirectory: sandbox.downloads, options: .removePreviousFile))
        let (error, removed) = refusal(of: result)
        #expect(error == .directoryAtDestination(directory))
        #expect(removed, "the downloaded file is cleaned up")
        #expect(try Data(contentsOf: directory.appendingPathComponent("inside")) == DownloadSandbox.original)
        #expect(result?.error?.description.contains("directories are never removed") == true)
    }

    @Test func theParentDirectoryIsNeverRemovedWhatEverTheNameSays() async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        // A caller's closure that trusts the URL's decoded last component:
        // `%2E%2E` makes it `..`, the download directory's parent.
        let downloads = sandbox.downloads
        let result = try await download("/dl/%2E%2E") { _, response in
            let decoded = response.url?.path.split(separator: "/").last.map(String.init) ?? ""
            return (downloads.appendingPathComponent(decoded), [.removePreviousFile])
        }
        let (error, removed) = refusal(of: result)
        #expect(error == .escapingPathComponent(downloads.appendingPathComponent("..")), "\(String(describing: result?.error))")
        #expect(removed)
        #expect(sandbox.sentinelsIntact)
        #expect(FileManager.default.fileExists(atPath: downloads.path))
    }

    @Test func aSymbolicLinkAtTheDestinationIsNeitherFollowedNorRemoved() async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let link = sandbox.downloads.appendingPathComponent("report.txt")
        let target = sandbox.root.appendingPathComponent(".bashrc")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let result = try await download(
            "/dl/report.txt", to: DownloadRequest.suggestedDownloadDestination(inDirectory: sandbox.downloads, options: .removePreviousFile))
        let (error, removed) = refusal(of: result)
        #expect(error == .symbolicLinkAtDestination(link))
        #expect(removed)
        #expect(sandbox.sentinelsIntact, "the link's target is unchanged")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path, "the link is still there")
    }

    @Test func aDanglingSymbolicLinkDoesNotCreateItsTarget() async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let link = sandbox.downloads.appendingPathComponent("report.txt")
        let target = sandbox.root.appendingPathComponent("planted")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let result = try await download("/dl/report.txt") { _, _ in (link, []) }
        #expect(refusal(of: result).0 == .symbolicLinkAtDestination(link))
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    @Test func aCallersDestinationWithADotDotComponentIsRefused() async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let downloads = sandbox.downloads
        let result = try await download("/dl/..%2F.bashrc") { _, response in
            // The mistake the hostile server hopes for: the decoded path, appended as is.
            (downloads.appendingPathComponent(response.url?.path.components(separatedBy: "/dl/").last ?? ""), [.removePreviousFile])
        }
        let (error, removed) = refusal(of: result)
        #expect(error == .escapingPathComponent(downloads.appendingPathComponent("../.bashrc")))
        #expect(removed)
        #expect(sandbox.sentinelsIntact)
    }

    /// By default, as in Alamofire: the server chooses the name, so it must
    /// not choose which of the directory's files to replace.
    @Test func anExistingFileIsKeptByDefaultAndWithoutRemovePreviousFile() async throws {
        for options: DownloadRequest.Options? in [nil, []] {
            let sandbox = try DownloadSandbox()
            defer { sandbox.remove() }
            let existing = sandbox.downloads.appendingPathComponent("report.txt")
            try DownloadSandbox.original.write(to: existing)
            let destination = options.map { DownloadRequest.suggestedDownloadDestination(inDirectory: sandbox.downloads, options: $0) }
                ?? DownloadRequest.suggestedDownloadDestination(inDirectory: sandbox.downloads)
            let result = try await download("/dl/report.txt", to: destination)
            #expect(refusal(of: result).0 == .fileExists(existing), "options: \(String(describing: options))")
            #expect(try Data(contentsOf: existing) == DownloadSandbox.original)
        }
    }

    @Test func removePreviousFileReplacesARegularFile() async throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let existing = sandbox.downloads.appendingPathComponent("report.txt")
        try DownloadSandbox.original.write(to: existing)
        let result = try await download(
            "/dl/report.txt", to: DownloadRequest.suggestedDownloadDestination(inDirectory: sandbox.downloads, options: .removePreviousFile))
        #expect(result?.value == existing, "\(String(describing: result?.error))")
        #expect(try Data(contentsOf: existing) == Self.payload)
    }

    @Test func aDestinationThatIsNotAFileURLIsRefused() async throws {
        let web = try #require(URL(string: "http://user:S3cr3tPw@example.com/file"))
        let result = try await download("/dl/report.txt") { _, _ in (web, []) }
        #expect(refusal(of: result).0 == .notAFileURL(web))
        #expect(result?.error?.description.contains("S3cr3tPw") == false)
    }

    /// A temporary file on another file system than the destination takes
    /// the copy path, which must not follow a link either.
    @Test(.enabled(if: DownloadMoveSecurityTests.sharedMemoryIsAnotherFileSystem))
    func aMoveAcrossFileSystemsRefusesALinkAndOtherwiseLandsTheFile() throws {
        let sandbox = try DownloadSandbox()
        defer { sandbox.remove() }
        let source = URL(fileURLWithPath: "/dev/shm/DeferredQueueTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: source) }
        let link = sandbox.downloads.appendingPathComponent("linked.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: sandbox.root.appendingPathComponent("planted"))
        try Self.payload.write(to: source)
        #expect(throws: DownloadRequest.DestinationError.symbolicLinkAtDestination(link)) {
            try DownloadMove.move(source, to: link, options: [.removePreviousFile])
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("planted").path))
        let destination = sandbox.downloads.appendingPathComponent("moved.txt")
        try DownloadMove.move(source, to: destination, options: [])
        #expect(try Data(contentsOf: destination) == Self.payload)
        #expect(!FileManager.default.fileExists(atPath: source.path))
        #expect(sandbox.downloaded == ["linked.txt", "moved.txt"], "no copy is left behind")
    }

    static var sharedMemoryIsAnotherFileSystem: Bool {
        let files = FileManager.default
        guard files.isWritableFile(atPath: "/dev/shm"),
              let shm = (try? files.attributesOfItem(atPath: "/dev/shm"))?[.systemNumber] as? NSNumber,
              let temporary = (try? files.attributesOfItem(atPath: files.temporaryDirectory.path))?[.systemNumber] as? NSNumber
        else { return false }
        return shm != temporary
    }
}
