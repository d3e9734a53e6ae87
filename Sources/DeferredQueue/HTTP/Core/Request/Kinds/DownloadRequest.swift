import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request whose body goes to a file as it arrives, then moves to a
/// destination you choose.
///
/// ```swift
/// download("https://example.com/archive.zip", to: DownloadRequest.suggestedDownloadDestination())
///     .downloadProgress { progress in print(progress) }
///     .responseURL { response in print(response.fileURL?.path ?? "failed") }
/// ```
///
/// Memory stays flat whatever the size: each chunk is written to a temporary
/// file on the transport's callback queue. When the request succeeds, the
/// file moves to the destination (by default a unique file in the temporary
/// directory, which you then own); a failed move is
/// ``HTTPError/downloadedFileMoveFailed(error:source:destination:)``. On
/// cancellation or failure the partial file is removed.
///
/// Whatever the destination, the move never writes through a symbolic link,
/// never removes a directory, and refuses a path with a `..` component: see
/// ``DestinationError`` and <doc:Security>.
///
/// The file never grows past ``Session/maximumStreamedBodySize`` decoded
/// bytes (or the request's ``Request/maximumResponseBodySize(_:)``): a
/// larger body stops the transfer with ``HTTPError/responseTooLarge(limit:)``
/// and its partial file is removed, so an endless body or a compression
/// bomb cannot fill the disk.
///
/// - Note: ``resumeData`` is always `nil`: downloads run as streamed data
///   transfers on every transport (URLSession on Linux has no resumable
///   download tasks, and AsyncHTTPClient none at all), so an interrupted
///   download starts again from the beginning when retried.
// `@unchecked Sendable` as `Request`: constants only here; what changes is in
// `Request.mutableState`, behind its one lock.
public final class DownloadRequest: Request, @unchecked Sendable {
    /// Where a finished download goes: given the temporary file and the
    /// response, the destination and how to move there.
    public typealias Destination = @Sendable (_ temporaryURL: URL, _ response: HTTPURLResponse)
        -> (destinationURL: URL, options: Options)

    /// How a finished download moves to its destination.
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Create missing directories on the way to the destination.
        public static let createIntermediateDirectories = Options(rawValue: 1 << 0)
        /// Replace a regular file already at the destination (otherwise the
        /// move fails); a directory, a symbolic link or a special file there
        /// is never removed.
        public static let removePreviousFile = Options(rawValue: 1 << 1)
    }

    let destination: Destination?

    init(session: Session, urlRequest: URLRequest, interceptor: (any RequestInterceptor)?, destination: Destination?) {
        self.destination = destination
        super.init(session: session, urlRequest: urlRequest, interceptor: interceptor, kind: .download)
    }

    init(session: Session, failedWith error: HTTPError) {
        self.destination = nil
        super.init(session: session, failedWith: error, urlRequest: nil)
    }

    /// A download released unstarted is not sent: nobody would read the file.
    override var unobservedCopy: Request? { nil }

    /// Always `nil`: see the note on ``DownloadRequest``.
    public var resumeData: Data? { nil }

    /// The body is the downloaded file: empty when there is none or it has no bytes.
    override func addContentValidation(_ check: @escaping @Sendable (HTTPURLResponse, _ isEmpty: Bool) -> Result<Void, any Error>) {
        appendStep { raw in
            guard raw.error == nil, let response = raw.response else { return raw }
            let size = raw.fileURL.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber }
            guard case .failure(let error) = check(response, (size?.int64Value ?? 0) == 0) else { return raw }
            return Self.rejecting(raw, with: error)
        }
    }

    override func attempt(_ number: Int, didDownload bytes: Int64, of expected: Int64?) {
        let sessionLimit = session.maximumStreamedBodySize
        perform(mutableState.withLock(owner: self) {
            $0.downloadGrew(to: bytes, of: expected, attempt: number, sessionLimit: sessionLimit)
        })
    }

    override func attempt(_ number: Int, didFinishDownloadingTo file: URL) {
        switch mutableState.withLock(owner: self, { $0.transportDownloaded(to: file, attempt: number) }) {
        case .keep(let replaced): replaced?.discard()
        case .remove(let file): try? FileManager.default.removeItem(at: file)
        }
    }

    override func consume(_ data: Data, attempt number: Int) {
        let sessionLimit = session.maximumStreamedBodySize
        var action = mutableState.withLock(owner: self) {
            $0.receiveDownloadChunk(count: data.count, attempt: number, sessionLimit: sessionLimit)
        }
        guard case .write(let handedOut) = action else {
            if case .fail(let error) = action { finish(failingWith: error) }
            return
        }
        // The file is this queue's until it is handed back: written outside
        // the lock. Dropping every other reference first keeps its buffer
        // unique, so writing into it copies nothing.
        action = .none
        var file: DownloadFile
        do {
            file = try (consume handedOut) ?? DownloadFile()
        } catch {
            return finish(failingWith: Self.writeFailure)
        }
        do {
            try file.write(data)
        } catch {
            // Not handed back: a file being written is its writer's to remove.
            file.discard()
            return finish(failingWith: Self.writeFailure)
        }
        switch mutableState.withLock(owner: self, { $0.downloadChunkWritten(file, attempt: number) }) {
        case .report(let progress, let handlers): Self.report(progress, to: handlers)
        case .discard(let file): file.discard()
        case .none: break
        }
    }

    private static var writeFailure: HTTPError {
        .downloadedFileMoveFailed(error: CocoaError(.fileWriteUnknown), source: nil, destination: nil)
    }

    override func finalOutcome(_ raw: RawResponse, file: DownloadFile?) -> RawResponse {
        var raw = raw
        guard raw.error == nil, let response = raw.response else {
            file?.discard()
            return raw
        }
        // An empty body never created a file: make an empty one.
        let temporary: URL
        do {
            temporary = try (file ?? DownloadFile()).close()
        } catch {
            raw.error = .downloadedFileMoveFailed(error: error, source: nil, destination: nil)
            return raw
        }
        let (destination, options) = destination?(temporary, response)
            ?? (FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueue-download-\(UUID().uuidString)"), [])
        do {
            try DownloadMove.move(temporary, to: destination, options: options)
            raw.fileURL = destination
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            raw.error = .downloadedFileMoveFailed(error: error, source: temporary, destination: destination)
        }
        return raw
    }
}
