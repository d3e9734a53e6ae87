import AsyncHTTPClient
import Dispatch
import Foundation
import NIOCore
import NIOEmbedded
import Synchronization
import Testing
@testable import DeferredQueueAsyncHTTPClient

/// A file body is measured when the request is converted and opened when
/// the client sends it: what the path names in between must neither block
/// the event loop nor be sent.
@Suite("AsyncHTTPClientTransport: a file body is checked again when it is sent")
struct FileBodyTests {
    /// A directory of its own with `bytes` in `body`.
    private func file(holding bytes: [UInt8]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("FileBodyTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("body")
        try Data(bytes).write(to: file)
        return file
    }

    /// Runs `body`'s stream off the test's thread, collecting what it
    /// writes, and returns its outcome, or `nil` if it did not end within
    /// 60 s (then `unblock` runs, so that the stream can end): a guard
    /// against a stream that blocks, generous for a loaded machine.
    private func send(_ body: HTTPClient.Body, unblock: () -> Void) -> (bytes: [UInt8], outcome: Result<Void, any Error>)? {
        let written = Mutex<[UInt8]>([])
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let ended = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            // Made here: an embedded loop is used on the thread that made it.
            let loop = EmbeddedEventLoop()
            let writer = HTTPClient.Body.StreamWriter { part in
                if case .byteBuffer(let buffer) = part { written.withLock { $0 += Array(buffer.readableBytesView) } }
                return loop.makeSucceededVoidFuture()
            }
            body.stream(writer).whenComplete { result in
                outcome.withLock { $0 = result }
                ended.signal()
            }
        }
        guard ended.wait(timeout: .now() + 60) == .success else {
            unblock()
            _ = ended.wait(timeout: .now() + 60)
            return nil
        }
        return (written.withLock { $0 }, outcome.withLock { $0! })
    }

    /// Expects the stream to have ended (`sent` not `nil`, else `ending`),
    /// sending nothing, with a `URLError` of `code` whose description has
    /// `words` if given.
    private func expectUnsent(
        _ sent: (bytes: [UInt8], outcome: Result<Void, any Error>)?, ending: Comment = "the stream did not end",
        failsWith code: URLError.Code, saying words: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try #require(sent, ending, sourceLocation: sourceLocation)
        #expect(result.bytes.count == 0, "bytes were sent", sourceLocation: sourceLocation)
        guard case .failure(let error as URLError) = result.outcome else {
            Issue.record("expected URLError \(code), got \(result.outcome)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, sourceLocation: sourceLocation)
        if let words { #expect(error.localizedDescription.contains(words), "\(error.localizedDescription)", sourceLocation: sourceLocation) }
    }

    /// Swapped for a FIFO after it was measured: a blocking `open` would
    /// wait for a writer, holding the event loop, and then send nothing.
    @Test func aFileSwappedForAFIFOFailsAtOnceUnsent() throws {
        let file = try file(holding: Array(repeating: 7, count: 1_000))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let body = try RequestConversion.fileBody(file, window: RequestBodyWindow())
        try FileManager.default.removeItem(at: file)
        try #require(mkfifo(file.path, 0o600) == 0)
        let sent = send(body) {
            // Lets a blocked `open` return: a writer comes and goes.
            let writer = open(file.path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }
        try expectUnsent(sent, ending: "the stream blocked opening the FIFO", failsWith: .cannotOpenFile, saying: "not a regular file")
    }

    /// Rewritten in place to another length after it was measured (the
    /// same inode: `write(to:)` without `.atomic`): the attempt fails
    /// before a byte goes.
    @Test func aFileRewrittenToAnotherLengthFailsAtOnceUnsent() throws {
        let file = try file(holding: Array(repeating: 7, count: 1_000))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let body = try RequestConversion.fileBody(file, window: RequestBodyWindow())
        try Data(repeating: 9, count: 10).write(to: file)
        try expectUnsent(send(body) {}, failsWith: .requestBodyStreamExhausted)
    }

    /// Replaced by another file of the same length (moved over it, or a
    /// link to a file the caller never named): that file is not sent.
    @Test(arguments: [false, true])
    func aFileReplacedByAnotherOfTheSameLengthFailsAtOnceUnsent(byLink: Bool) throws {
        let file = try file(holding: Array(repeating: 7, count: 1_000))
        let directory = file.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = try RequestConversion.fileBody(file, window: RequestBodyWindow())
        let other = directory.appendingPathComponent("other")
        try Data(repeating: 9, count: 1_000).write(to: other)
        if byLink {
            try FileManager.default.removeItem(at: file)
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: other)
        } else {
            #expect(rename(other.path, file.path) == 0)
        }
        try expectUnsent(send(body) {}, failsWith: .cannotOpenFile, saying: "replaced by another file")
    }

    /// Removed after it was measured: the error URLSession's transport
    /// gives for a missing file.
    @Test func aFileRemovedAfterItWasMeasuredFailsAsMissing() throws {
        let file = try file(holding: Array(repeating: 7, count: 1_000))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let body = try RequestConversion.fileBody(file, window: RequestBodyWindow())
        try FileManager.default.removeItem(at: file)
        try expectUnsent(send(body) {}, failsWith: .fileDoesNotExist)
    }

    /// Unchanged, it is sent whole.
    @Test func anUnchangedFileIsSentWhole() throws {
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0) }
        let file = try file(holding: bytes)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let body = try RequestConversion.fileBody(file, window: RequestBodyWindow())
        let result = try #require(send(body) {}, "the stream did not end")
        #expect(throws: Never.self) { try result.outcome.get() }
        #expect(result.bytes == bytes)
    }
}
