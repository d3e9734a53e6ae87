import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

/// One entity served over loopback the way a file server does: an `ETag`,
/// `Accept-Ranges: bytes`, and `Range` / `If-Range` honoured (RFC 9110 §14).
/// Its version changes its bytes and its `ETag`; `cutFirstAt` cuts the first
/// whole response short (the connection closes after that many bytes).
final class ResumableEntity: Sendable {
    struct Seen: Sendable {
        let range: String?
        let ifRange: String?
        let acceptEncoding: String?
    }

    enum Behaviour: Sendable {
        /// Ranges honoured when `If-Range` names the current version.
        case honoursRanges
        /// Every request gets the whole entity.
        case ignoresRanges
        /// Every range is refused with `416`.
        case refusesRanges
        /// A `206` that starts at the wrong byte.
        case misplacesRanges
        /// Every range is refused with `416` and a page saying so.
        case refusesRangesWithAPage
        /// A `206` of the right range whose `Content-Length` is 10.
        case declaresTenBytes
        /// A `206` of 200 bytes, not the rest of the entity.
        case sendsAPiece
        /// A `206` whose range says the entity is twice as long.
        case doublesTheLength
        /// A `206` of the rest of another version (its `ETag`).
        case splicesAnotherVersion
        /// A `206` whose range is empty (`bytes 400-399/…`), and no body.
        case sendsAnEmptyRange
        /// A `206` of the right range, chunked, 10 bytes short.
        case chunksTooFewBytes
        /// A `206` of the right range, chunked, 10 bytes too many.
        case chunksTooManyBytes
        /// A `206`, chunked, whose range ends at the largest offset there is.
        case endsAtTheLargestOffset
        /// Ranges honoured, the rest sent 64 KiB every 0.1 s.
        case tricklesRanges
    }

    /// The entity's settings; its one lock is `value`.
    final class Settings: Sendable {
        let value: Mutex<(version: Int, cut: Int?, behaviour: Behaviour, trickle: Bool)>
        init(_ value: (version: Int, cut: Int?, behaviour: Behaviour, trickle: Bool)) { self.value = Mutex(value) }
    }

    let length: Int64
    let server: LoopbackServer
    private let settings: Settings
    let seen = Recorder<Seen>()

    init(length: Int64, cutFirstAt cut: Int? = nil, behaviour: Behaviour = .honoursRanges, trickle: Bool = false) throws {
        self.length = length
        let settings = Settings((1, cut, behaviour, trickle))
        self.settings = settings
        let seen = self.seen
        server = try LoopbackServer(routes: ["/entity": { request in
            seen.append(Seen(range: request.header("Range"), ifRange: request.header("If-Range"), acceptEncoding: request.header("Accept-Encoding")))
            let (version, cut, behaviour, trickle) = settings.value.testLock(owner: settings) { state in
                defer { state.cut = nil }
                return state
            }
            let etag = "\"v\(version)\""
            let body = ResumableEntity.content(version: version, in: 0..<length)
            let headers = [("ETag", etag), ("Accept-Ranges", "bytes"), ("Content-Type", "application/octet-stream")]
            if let range = request.header("Range"), behaviour != .ignoresRanges,
               request.header("If-Range") == etag || behaviour == .refusesRanges || behaviour == .refusesRangesWithAPage,
               let start = Int64(range.dropFirst("bytes=".count).dropLast()) {
                if behaviour == .refusesRanges || start >= length {
                    return .response(status: 416, headers: [("Content-Range", "bytes */\(length)")])
                }
                let rest = body.subdata(in: Int(start)..<Int(length))
                let rangeHeaders = headers + [("Content-Range", "bytes \(start)-\(length - 1)/\(length)")]
                switch behaviour {
                case .refusesRangesWithAPage:
                    return .response(status: 416, headers: [("Content-Range", "bytes */\(length)"), ("Content-Type", "text/html")],
                                     body: Data("<html>Range Not Satisfiable</html>".utf8))
                case .misplacesRanges:
                    return .response(status: 206, headers: headers + [("Content-Range", "bytes \(start + 1)-\(length - 1)/\(length)")],
                                     body: body.subdata(in: Int(start + 1)..<Int(length)))
                case .declaresTenBytes:
                    return .response(status: 206, headers: rangeHeaders + [("Content-Length", "10")], body: rest.prefix(10))
                case .sendsAPiece:
                    return .response(status: 206, headers: headers + [("Content-Range", "bytes \(start)-\(start + 199)/\(length)")],
                                     body: rest.prefix(200))
                case .doublesTheLength:
                    return .response(status: 206, headers: headers + [("Content-Range", "bytes \(start)-\(2 * length - 1)/\(2 * length)")],
                                     body: rest + rest)
                case .splicesAnotherVersion:
                    let other = ResumableEntity.content(version: version + 1, in: start..<length)
                    return .response(status: 206, headers: [("ETag", "\"v\(version + 1)\""), ("Accept-Ranges", "bytes"),
                                                            ("Content-Range", "bytes \(start)-\(length - 1)/\(length)")], body: other)
                case .sendsAnEmptyRange:
                    return .response(status: 206, headers: headers + [("Content-Range", "bytes \(start)-\(start - 1)/\(length)")])
                case .chunksTooFewBytes:
                    return .chunked(status: 206, headers: rangeHeaders, chunks: [rest.dropLast(10)])
                case .chunksTooManyBytes:
                    return .chunked(status: 206, headers: rangeHeaders, chunks: [rest, Data(repeating: 0, count: 10)])
                case .endsAtTheLargestOffset:
                    return .chunked(status: 206, headers: headers + [("Content-Range", "bytes \(start)-\(Int64.max)/*")], chunks: [rest])
                case .tricklesRanges:
                    return .trickle(status: 206, headers: rangeHeaders, body: rest, chunkSize: 64 << 10, interval: 0.1)
                default:
                    return .response(status: 206, headers: rangeHeaders, body: rest)
                }
            }
            if let cut { return .closeMidBody(status: 200, headers: headers, body: body, sentBytes: cut) }
            // 16 KiB every 0.2 s: the whole body takes 50 s, so a test that
            // cancels after the first 256 KiB (3 s) never races its end, even
            // slowed down by a sanitizer beside every other suite.
            if trickle { return .trickle(status: 200, headers: headers, body: body, chunkSize: 16 << 10, interval: 0.2) }
            return .response(status: 200, headers: headers, body: body)
        }])
    }

    var url: URL { server.url("/entity") }

    /// A new version: other bytes, another `ETag`.
    func change() { settings.value.testLock(owner: settings) { $0.version += 1 } }

    /// The entity's bytes in `range` for `version`.
    static func content(version: Int, in range: Range<Int64>) -> Data {
        var data = GeneratedContent.pattern.bytes(in: range)
        if version > 1 { data = Data(data.map { $0 &+ UInt8(version) }) }
        return data
    }
}

/// A download that fails or is cancelled keeps what it received and resumes
/// with `Range` / `If-Range`, on every transport (Alamofire on Linux cannot:
/// corelibs has no resume data).
@Suite("Resumable downloads: Range and If-Range above the transport", .timeLimit(.minutes(3)))
struct ResumableDownloadTests {
    static let length: Int64 = 4 << 20

    /// One download's response.
    func download(_ request: DownloadRequest) async -> DownloadResponse<URL, HTTPError>? {
        await downloadResponse { request.responseURL(queue: handlerQueue, completionHandler: $0) }
    }

    /// A download of `entity` that the server cut short, with its resume data.
    func interrupted(_ entity: ResumableEntity, session: Session) async throws -> (response: DownloadResponse<URL, HTTPError>, resumeData: Data) {
        let request = session.download(entity.url)
        let failed = try #require(await download(request))
        #expect(failed.error?.urlError?.code == .networkConnectionLost, "\(String(describing: failed.error))")
        let data = try #require(failed.resumeData, "a download cut short leaves resume data")
        #expect(request.resumeData == data)
        return (failed, data)
    }

    static func partialFile(of data: Data) throws -> URL {
        try DownloadResumeData(decoding: data).partialFile
    }

    @Test func aDownloadCutShortResumesFromWhereItStopped() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2))
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        let resume = try DownloadResumeData(decoding: data)
        #expect(resume.bytes > 0 && resume.bytes <= Self.length / 2, "\(resume.bytes)")
        #expect(resume.validator == "\"v1\"")
        #expect(resume.totalBytes == Self.length)
        #expect(try Data(contentsOf: resume.partialFile) == ResumableEntity.content(version: 1, in: 0..<resume.bytes))

        let resumed = try #require(await download(session.download(resumingWith: data)))
        let file = try #require(resumed.fileURL, "\(String(describing: resumed.error))")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(resumed.response?.statusCode == 206)
        #expect(try Data(contentsOf: file) == ResumableEntity.content(version: 1, in: 0..<Self.length))
        #expect(resumed.resumeData == nil)
        let request = try #require(entity.seen.events.last)
        #expect(request.range == "bytes=\(resume.bytes)-")
        #expect(request.ifRange == "\"v1\"")
        #expect(request.acceptEncoding == "identity")
        #expect(!FileManager.default.fileExists(atPath: resume.partialFile.path), "the partial file became the download")
    }

    /// The usual chain keeps no reference to the request: the response still carries the resume data.
    /// Alamofire's `didResumeAtOffset`: the partial file's length and the
    /// whole entity's; the written progress then counts from there.
    @Test func aResumedDownloadIsToldItsOffsetAndCountsOnFromIt() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2))
        let (_, data) = try await interrupted(entity, session: TestTransport.makeSession())
        let resume = try DownloadResumeData(decoding: data)
        let monitor = TransferMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        let resumed = try #require(await download(session.download(resumingWith: data)))
        let file = try #require(resumed.fileURL, "\(String(describing: resumed.error))")
        defer { try? FileManager.default.removeItem(at: file) }
        await drained(monitor.queue)
        #expect(monitor.events.events.filter { $0.hasPrefix("resumeAt") } == ["resumeAt:\(resume.bytes)/\(Self.length)"])
        let written = monitor.written.events
        #expect(written.first.map { $0.completed > resume.bytes } == true)
        #expect(written.last?.completed == Self.length)
        #expect(written.allSatisfy { $0.expected == Self.length })
        #expect(monitor.receivedBytes == ResumableEntity.content(version: 1, in: resume.bytes..<Self.length))
    }

    @Test func theResponseCarriesResumeDataWhenNobodyHoldsTheRequest() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2))
        let session = TestTransport.makeSession()
        let failed = try #require(await downloadResponse { session.download(entity.url).responseURL(queue: handlerQueue, completionHandler: $0) })
        let data = try #require(failed.resumeData)
        try? FileManager.default.removeItem(at: try Self.partialFile(of: data))
    }

    /// Resume data is bytes: written to disk, it resumes in another session (another run).
    @Test func resumeDataWorksInAnotherSessionAfterARestart() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 3))
        let saved = FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueueTests-resume-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: saved) }
        try await interrupted(entity, session: TestTransport.makeSession()).resumeData.write(to: saved)

        let later = TestTransport.makeSession()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("entity.bin")
        let resumed = try #require(await download(later.download(resumingWith: try Data(contentsOf: saved)) { _, _ in (destination, []) }))
        #expect(resumed.fileURL == destination, "\(String(describing: resumed.error))")
        #expect(try Data(contentsOf: destination) == ResumableEntity.content(version: 1, in: 0..<Self.length))
    }

    @Test func aChangedEntityIsSentWholeAndReplacesThePartialFile() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2))
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        entity.change()
        let resumed = try #require(await download(session.download(resumingWith: data)))
        let file = try #require(resumed.fileURL, "\(String(describing: resumed.error))")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(resumed.response?.statusCode == 200)
        #expect(try Data(contentsOf: file) == ResumableEntity.content(version: 2, in: 0..<Self.length))
        #expect(!FileManager.default.fileExists(atPath: try Self.partialFile(of: data).path))
    }

    @Test func aServerThatIgnoresRangesStartsAgainCleanly() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2), behaviour: .ignoresRanges)
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        let resumed = try #require(await download(session.download(resumingWith: data)))
        let file = try #require(resumed.fileURL, "\(String(describing: resumed.error))")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(resumed.response?.statusCode == 200)
        #expect(try Data(contentsOf: file) == ResumableEntity.content(version: 1, in: 0..<Self.length))
    }

    /// A `416` starts again without a range — also one with a page (nginx
    /// and Apache send one): the page is not the download, and the partial
    /// file waits until the request started again has the whole entity.
    @Test(arguments: [ResumableEntity.Behaviour.refusesRanges, .refusesRangesWithAPage])
    func anUnsatisfiableRangeStartsAgainWithoutOne(_ behaviour: ResumableEntity.Behaviour) async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2), behaviour: behaviour)
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        let resumed = try #require(await download(session.download(resumingWith: data)))
        let file = try #require(resumed.fileURL, "\(behaviour): \(String(describing: resumed.error))")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(resumed.response?.statusCode == 200)
        #expect(try Data(contentsOf: file) == ResumableEntity.content(version: 1, in: 0..<Self.length))
        #expect(entity.seen.events.suffix(2).map(\.range?.isEmpty) == [false, nil], "the 416 is followed by a request without a range")
        #expect(!FileManager.default.fileExists(atPath: try Self.partialFile(of: data).path))
    }

    /// A `206` that is not exactly the rest of the version resumed — its
    /// length, its range, the entity's length, its `ETag`, or its body
    /// belie it — fails the download instead of splicing it onto the
    /// partial file (both transports reported a file of the wrong bytes,
    /// or none of the first ones, as downloaded).
    @Test(arguments: [
        ResumableEntity.Behaviour.declaresTenBytes, .sendsAPiece, .doublesTheLength, .splicesAnotherVersion,
        .sendsAnEmptyRange, .chunksTooFewBytes, .chunksTooManyBytes,
    ])
    func aRangeThatBeliesItselfFails(_ behaviour: ResumableEntity.Behaviour) async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2), behaviour: behaviour)
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        let resumed = try #require(await download(session.download(resumingWith: data)))
        #expect(resumed.error?.urlError?.code == .badServerResponse, "\(TestTransport.name), \(behaviour): \(String(describing: resumed.error))")
        #expect(resumed.fileURL == nil, "\(TestTransport.name), \(behaviour)")
        #expect(!FileManager.default.fileExists(atPath: try Self.partialFile(of: data).path))
        // The failure names the header at fault (a changed version blamed Content-Range).
        let blamed: String? = switch behaviour {
        case .splicesAnotherVersion: "its ETag names another version"
        case .declaresTenBytes: "its Content-Length is not its Content-Range's length"
        case .sendsAPiece: "ends at byte"
        case .doublesTheLength: "gives the entity"
        default: nil
        }
        if let blamed {
            #expect(resumed.error.map { "\($0)" }?.contains(blamed) == true, "\(behaviour): \(String(describing: resumed.error))")
        }
    }

    /// Resume data without a total (the first response was chunked) and a
    /// range to `Int64.max`: the file's length, `last + 1`, trapped.
    @Test func aRangeToTheLargestOffsetFails() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2), behaviour: .endsAtTheLargestOffset)
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        var unknownTotal = try DownloadResumeData(decoding: data)
        unknownTotal.totalBytes = nil
        let resumed = try #require(await download(session.download(resumingWith: unknownTotal.encoded())))
        #expect(resumed.error?.urlError?.code == .badServerResponse, "\(TestTransport.name): \(String(describing: resumed.error))")
        #expect(resumed.fileURL == nil)
    }

    /// The partial file's name sits in the shared temporary directory: a
    /// link put there after the request was made (a hard link, or a
    /// symbolic one in place of the file) was followed, and the download
    /// wrote into the file it names and reported success.
    @Test(arguments: ["hard link", "symbolic link"])
    func aPartialFileReplacedByALinkIsNotWrittenThrough(_ kind: String) async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2))
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        let partial = try Self.partialFile(of: data)
        let directory = try TemporaryDirectory()
        let victim = directory.url.appendingPathComponent("victim")
        let original = try Data(contentsOf: partial)
        try original.write(to: victim)
        // Made before the link appears, so the resume point is taken as intact.
        let request = session.download(resumingWith: data)
        try FileManager.default.removeItem(at: partial)
        if kind == "hard link" {
            try FileManager.default.linkItem(at: victim, to: partial)
        } else {
            try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: victim)
        }
        defer { try? FileManager.default.removeItem(at: partial) }
        let resumed = try #require(await download(request))
        #expect(resumed.error != nil, "\(TestTransport.name), \(kind): wrote through the link")
        #expect(resumed.fileURL == nil)
        #expect(try Data(contentsOf: victim) == original, "\(TestTransport.name), \(kind): the linked file changed")
    }

    /// Two downloads resumed from one resume data: the first takes the
    /// partial file, and the second said `CocoaError 512 "(null)"`.
    @Test func aSecondResumeFromTheSameDataSaysThePartialFileIsGone() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2))
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        let first = session.download(resumingWith: data)
        let second = session.download(resumingWith: data)
        let done = try #require(await download(first))
        let file = try #require(done.fileURL, "\(String(describing: done.error))")
        defer { try? FileManager.default.removeItem(at: file) }
        let again = try #require(await download(second))
        #expect(again.fileURL == nil)
        guard case .downloadedFileMoveFailed(let error, _, _)? = again.error else {
            Issue.record("\(TestTransport.name): \(String(describing: again.error))")
            return
        }
        #expect((error as? CocoaError)?.code == .fileNoSuchFile, "\(error)")
        #expect("\(error)".contains("another download resumed"), "\(error)")
    }

    /// Two downloads resumed from one resume data at once both wrote the
    /// one partial file; the first to finish moved it away, and the other
    /// failed saying its finished file "could not be written or moved".
    /// Now the first to receive its `206` takes the file over.
    @Test func twoResumesAtOnceFromTheSameDataNeverShareThePartialFile() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2), behaviour: .tricklesRanges)
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        async let first = download(session.download(resumingWith: data))
        async let second = download(session.download(resumingWith: data))
        let responses = try [#require(await first), #require(await second)]
        let files = responses.compactMap(\.fileURL)
        defer { for file in files { try? FileManager.default.removeItem(at: file) } }
        #expect(files.count == 1, "\(TestTransport.name): \(responses.map { String(describing: $0.error) })")
        for file in files {
            #expect(try Data(contentsOf: file) == ResumableEntity.content(version: 1, in: 0..<Self.length))
        }
        for response in responses where response.fileURL == nil {
            guard case .downloadedFileMoveFailed(let error, _, _)? = response.error else {
                Issue.record("\(TestTransport.name): \(String(describing: response.error))")
                continue
            }
            #expect((error as? CocoaError)?.code == .fileNoSuchFile, "\(error)")
            #expect("\(error)".contains("another download resumed"), "\(error)")
        }
        #expect(entity.seen.events.dropFirst().allSatisfy { $0.range != nil }, "both asked for the rest")
    }

    @Test func aRangeThatDoesNotContinueThePartialFileFails() async throws {
        let entity = try ResumableEntity(length: Self.length, cutFirstAt: Int(Self.length / 2), behaviour: .misplacesRanges)
        let session = TestTransport.makeSession()
        let (_, data) = try await interrupted(entity, session: session)
        let resumed = try #require(await download(session.download(resumingWith: data)))
        #expect(resumed.error?.urlError?.code == .badServerResponse, "\(String(describing: resumed.error))")
        #expect(resumed.fileURL == nil)
        #expect(!FileManager.default.fileExists(atPath: try Self.partialFile(of: data).path))
    }

    /// Alamofire calls `cancel(byProducingResumeData:)`'s completion before
    /// the request's handlers run; it came after the cancellation had
    /// released them, so a handler could find nothing handed over yet
    /// (Alamofire's own `testThatCancelledDownloadProducesMatchingResumeData`).
    @Test func theResumeDataCompletionRunsBeforeTheHandlers() async throws {
        let entity = try ResumableEntity(length: Self.length, trickle: true)
        let session = TestTransport.makeSession()
        let request = session.download(entity.url)
        let produced = Recorder<Data?>()
        let once = Counter()
        request.downloadProgress(queue: handlerQueue) { [weak request] _ in
            guard once.increment() == 1 else { return }
            request?.cancel { data in
                // Slow, so that a handler released before it would run first.
                Thread.sleep(forTimeInterval: 0.2)
                produced.append(data)
            }
        }
        let seen = Recorder<[Data?]>()
        let resumeData = Recorder<Data?>()
        request.responseURL(queue: handlerQueue) { response in
            seen.append(produced.events)
            resumeData.append(response.resumeData)
        }
        #expect(await eventually(within: 60) { seen.count == 1 })
        let handedOver = try #require(seen.events.first)
        #expect(handedOver.count == 1, "\(TestTransport.name): the completion had not run when the handler did")
        let data = try #require(resumeData.events.first ?? nil, "a download cancelled mid-body has resume data")
        defer { try? FileManager.default.removeItem(at: Self.partialFile(of: data)) }
        #expect(handedOver.first == data)
        #expect(request.resumeData == data)
        #expect(produced.count == 1, "called once")
    }

    @Test func cancellingForResumeDataKeepsWhatArrivedAndPlainCancellingDoesNot() async throws {
        let entity = try ResumableEntity(length: Self.length, trickle: true)
        let session = TestTransport.makeSession()
        let request = session.download(entity.url)
        let progressed = Latch()
        let once = Counter()
        request.downloadProgress(queue: handlerQueue) { progress in
            if progress.completed >= 256 << 10, once.increment() == 1 { progressed.arrive() }
        }
        let response = Recorder<DownloadResponse<URL, HTTPError>>()
        request.responseURL(queue: handlerQueue) { response.append($0) }
        #expect(await progressed.wait())
        let produced = Recorder<Data?>()
        let cancelled = Latch()
        request.cancel { data in
            produced.append(data)
            cancelled.arrive()
        }
        #expect(await cancelled.wait())
        let data = try #require(produced.events.first ?? nil, "cancel(byProducingResumeData:) hands over resume data")
        #expect(await eventually(within: 60) { response.count == 1 })
        #expect(response.events.first?.error?.isCancelled == true)
        #expect(response.events.first?.resumeData == data, "the handlers see the resume data")

        let resumed = try #require(await download(session.download(resumingWith: data)))
        let file = try #require(resumed.fileURL, "\(String(describing: resumed.error))")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Data(contentsOf: file) == ResumableEntity.content(version: 1, in: 0..<Self.length))

        // A plain cancellation leaves nothing behind.
        let plain = session.download(entity.url)
        let started = Latch()
        plain.downloadProgress(queue: handlerQueue) { _ in started.arrive() }
        let plainResponse = Recorder<DownloadResponse<URL, HTTPError>>()
        plain.responseURL(queue: handlerQueue) { plainResponse.append($0) }
        #expect(await started.wait())
        plain.cancel()
        #expect(await eventually(within: 60) { plainResponse.count == 1 })
        #expect(plain.resumeData == nil)
        #expect(plainResponse.events.first?.resumeData == nil)
    }

    @Test func resumeDataThatIsNotOursFailsClearlyAndAMissingPartialFileStartsAgain() async throws {
        let entity = try ResumableEntity(length: 64 << 10)
        let session = TestTransport.makeSession()
        let garbage = try #require(await download(session.download(resumingWith: Data("not resume data".utf8))))
        guard case .createURLRequestFailed(let error) = garbage.error else {
            Issue.record("\(String(describing: garbage.error))")
            return
        }
        #expect(error is ResumeDataError)

        var escaping = DownloadResumeData(
            url: entity.url, headers: [:], partialFileName: "../../etc/passwd", bytes: 10, validator: "\"v1\"", totalBytes: nil
        )
        let refused = try #require(await download(session.download(resumingWith: escaping.encoded())))
        #expect(refused.error?.underlyingError is ResumeDataError || refused.error.map { "\($0)" }?.contains("partial file name") == true,
                "\(String(describing: refused.error))")

        escaping.partialFileName = DownloadResumeData.partialFilePrefix + "gone"
        let restarted = try #require(await download(session.download(resumingWith: escaping.encoded())))
        let file = try #require(restarted.fileURL, "\(String(describing: restarted.error))")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Data(contentsOf: file) == ResumableEntity.content(version: 1, in: 0..<(64 << 10)))
        #expect(entity.seen.events.last?.range == nil, "no partial file: no range asked for")
    }
}
