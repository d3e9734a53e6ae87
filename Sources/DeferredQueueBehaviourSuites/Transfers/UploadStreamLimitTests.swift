import DeferredQueueTesting
import Foundation
import LoopbackServer
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

/// An `InputStream` upload is copied to a temporary file before it is sent:
/// a stream that never ends must not fill the disk, nor keep being copied
/// once nobody wants the request.
@Suite("Uploads of an InputStream: the copy stops at the session's limit and on cancel")
struct UploadStreamLimitTests {
    @Test func aStreamLongerThanTheSessionsLimitFailsUnsentAndLeavesNoFile() async throws {
        let scratch = try UploadScratch()
        defer { withExtendedLifetime(scratch) {} }
        let (server, fileManager) = (scratch.server, scratch.fileManager)
        let limit = 1 << 20
        let session = TestTransport.makeSession(maximumStreamedBodySize: limit)
        let stream = StreamProbe(givingUpAfter: 64 << 20)
        let result = await response {
            session.upload(EndlessStream(stream), to: server.url("/"), method: .put, fileManager: fileManager)
                .responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.kind == "createUploadableFailed")
        #expect(result?.error?.errorDescription?.contains("more than \(limit) bytes") == true, "\(String(describing: result?.error))")
        #expect(!stream.gaveUp, "stopped at the session's limit, not at the end of the test's stream")
        #expect(stream.bytesRead <= limit + UploadStream.chunkSize)
        #expect(server.requestCount == 0)
        #expect(await eventually { fileManager.scratchIsEmpty }, "the partial copy is removed")
    }

    /// The copy checks for cancellation before every chunk: a request
    /// cancelled while its stream is copied reads one more chunk at most.
    @Test func cancellingWhileTheStreamIsCopiedStopsTheCopy() async throws {
        let scratch = try UploadScratch()
        defer { withExtendedLifetime(scratch) {} }
        let (server, fileManager) = (scratch.server, scratch.fileManager)
        let session = TestTransport.makeSession(maximumStreamedBodySize: Int.max)
        let stream = StreamProbe(givingUpAfter: 64 << 20, pausingAtSecondRead: true)
        let request = session.upload(EndlessStream(stream), to: server.url("/"), method: .put, fileManager: fileManager)
        let done = Latch()
        let outcome = Recorder<String>()
        request.responseData(queue: handlerQueue) { outcome.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await stream.reachedSecondRead.wait())
        request.cancel()
        stream.carryOn.signal()
        #expect(await done.wait())
        #expect(outcome.events == ["cancelled"])
        #expect(await eventually { fileManager.scratchIsEmpty }, "the copy stopped and was removed")
        #expect(stream.reads == 2, "no chunk was read after the cancel was seen")
        #expect(!stream.gaveUp)
        #expect(server.requestCount == 0)
    }
}

/// A form's stream parts are read whole into the encoded form, as an
/// `InputStream` upload is copied: the same limit, and the same stop on
/// cancel (a form spooled 300 MiB past a 1 MiB limit, and a cancelled one
/// kept writing its spool file by the gigabyte).
@Suite("Uploads of a form with a stream part: the session's limit and cancel stop the encoding")
struct MultipartStreamLimitTests {
    @Test func aStreamPartLongerThanTheSessionsLimitFailsUnsentUnread() async throws {
        let scratch = try UploadScratch()
        defer { withExtendedLifetime(scratch) {} }
        let (server, fileManager) = (scratch.server, scratch.fileManager)
        let limit = 1 << 20
        let session = TestTransport.makeSession(maximumStreamedBodySize: limit)
        let stream = StreamProbe(givingUpAfter: 64 << 20)
        let result = await response {
            session.upload(multipartFormData: { form in
                form.append(EndlessStream(stream), withLength: 300 << 20, name: "file", fileName: "zero", mimeType: "application/octet-stream")
            }, to: server.url("/"), fileManager: fileManager).responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.kind == "createUploadableFailed", "\(String(describing: result?.error))")
        #expect(result?.error?.errorDescription?.contains("more than \(limit) bytes") == true, "\(String(describing: result?.error))")
        #expect(stream.reads == 0)
        #expect(server.requestCount == 0)
        #expect(await eventually { fileManager.scratchIsEmpty })
    }

    @Test func cancellingWhileTheFormIsEncodedStopsTheEncoding() async throws {
        let scratch = try UploadScratch()
        defer { withExtendedLifetime(scratch) {} }
        let (server, fileManager) = (scratch.server, scratch.fileManager)
        let session = TestTransport.makeSession(maximumStreamedBodySize: Int.max)
        let stream = StreamProbe(givingUpAfter: 64 << 20, pausingAtSecondRead: true)
        let request = session.upload(multipartFormData: { form in
            form.append(EndlessStream(stream), withLength: 60 << 20, name: "file", fileName: "zero", mimeType: "application/octet-stream")
        }, to: server.url("/"), fileManager: fileManager)
        let done = Latch()
        let outcome = Recorder<String>()
        request.responseData(queue: handlerQueue) { outcome.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await stream.reachedSecondRead.wait())
        request.cancel()
        stream.carryOn.signal()
        #expect(await done.wait())
        #expect(outcome.events == ["cancelled"])
        #expect(await eventually { fileManager.scratchIsEmpty }, "the encoding stopped and its file was removed")
        #expect(stream.reads == 2, "no chunk was read after the cancel was seen")
        #expect(server.requestCount == 0)
    }
}

/// An echo server and a scratch directory for one test, gone with it.
private final class UploadScratch {
    let server: LoopbackServer
    let fileManager: ScratchFileManager

    init() throws {
        server = try UploadTests.echoServer()
        fileManager = try ScratchFileManager(inside: FileManager.default.temporaryDirectory)
    }

    deinit {
        server.shutdown()
        fileManager.removeScratch()
    }
}

/// What an ``EndlessStream`` did, and the test's hold on its second read.
private final class StreamProbe: Sendable {
    let cap: Int
    let pauses: Bool
    private let counts = Mutex((reads: 0, bytes: 0, gaveUp: false))
    let reachedSecondRead = Latch()
    let carryOn = DispatchSemaphore(value: 0)

    init(givingUpAfter cap: Int, pausingAtSecondRead pauses: Bool = false) {
        self.cap = cap
        self.pauses = pauses
    }

    var reads: Int { counts.withLock { $0.reads } }
    var bytesRead: Int { counts.withLock { $0.bytes } }
    var gaveUp: Bool { counts.withLock { $0.gaveUp } }

    /// Read number `read` of `length` bytes: whether the stream still gives them.
    func read(_ read: Int, length: Int) -> Bool {
        if pauses, read == 2 {
            reachedSecondRead.arrive()
            _ = carryOn.wait(timeout: .now() + 600)
        }
        return counts.withLock {
            guard $0.bytes + length <= cap else {
                $0.gaveUp = true
                return false
            }
            $0.reads = read
            $0.bytes += length
            return true
        }
    }

    var nextRead: Int { counts.withLock { $0.reads + 1 } }
}

/// A stream that never ends (until its probe's cap, where it fails, so that
/// a broken limit cannot fill the test machine's disk).
private final class EndlessStream: InputStream {
    private let probe: StreamProbe

    init(_ probe: StreamProbe) {
        self.probe = probe
        super.init(data: Data())
    }

    override var hasBytesAvailable: Bool { true }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        let read = probe.nextRead
        guard probe.read(read, length: length) else { return -1 }
        buffer.update(repeating: UInt8(truncatingIfNeeded: read), count: length)
        return length
    }
}
