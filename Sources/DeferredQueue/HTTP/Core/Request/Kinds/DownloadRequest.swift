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
        super.init(session: session, urlRequest: urlRequest, interceptor: interceptor)
    }

    init(session: Session, failedWith error: HTTPError) {
        self.destination = nil
        super.init(session: session, failedWith: error, urlRequest: nil)
    }

    /// A download released unstarted is not sent: nobody would read the file.
    override var unobservedCopy: Request? { nil }

    /// Always `nil`: see the note on ``DownloadRequest``.
    public var resumeData: Data? { nil }

    override var collectsBodies: Bool { false }

    override var downloadsToFile: Bool { true }

    override func attempt(_ number: Int, didDownload bytes: Int64, of expected: Int64?) {
        let limit = streamedBodyLimit
        if bytes > Int64(limit) {
            // The transport's file grew past the limit: stop it now (its file goes with the cancelled task).
            let current = mutableState.withLock(owner: self) { $0.isCurrent(number) }
            if current { finish(failingWith: .responseTooLarge(limit: limit)) }
            return
        }
        let handlers = mutableState.withLock(owner: self) { $0.isCurrent(number) ? $0.progressHandlers : [] }
        guard !handlers.isEmpty else { return }
        let encoded = mutableState.withLock(owner: self) { $0.response }.map { Self.decodedLength(of: $0) == nil } ?? false
        Self.report(TransferProgress(completed: bytes, expected: encoded ? nil : expected), to: handlers)
    }

    override func attempt(_ number: Int, didFinishDownloadingTo file: URL) {
        let kept = mutableState.withLock(owner: self) { state -> Bool in
            guard state.isCurrent(number) else { return false }
            state.download?.discard()
            state.download = DownloadFile(attempt: number, finishedAt: file)
            return true
        }
        if !kept { try? FileManager.default.removeItem(at: file) }
    }

    override func consume(_ data: Data, attempt number: Int) {
        let limit = streamedBodyLimit
        let update = mutableState.withLock(owner: self) { state -> Result<([ProgressHandler], TransferProgress), HTTPError>? in
            guard state.isCurrent(number) else { return nil }
            let written = state.download?.attempt == number ? state.download?.length ?? 0 : 0
            // Past the limit nothing more is written: the file (of a bomb, an
            // endless body) is removed when the request finishes, right below.
            guard written + Int64(data.count) <= Int64(limit) else { return .failure(.responseTooLarge(limit: limit)) }
            do {
                if state.download?.attempt != number {
                    state.download?.discard()
                    state.download = try DownloadFile(attempt: number)
                }
                try state.download?.write(data)
            } catch {
                return .failure(.downloadedFileMoveFailed(error: CocoaError(.fileWriteUnknown), source: nil, destination: nil))
            }
            let expected = state.response.flatMap(Self.decodedLength(of:))
            return .success((state.progressHandlers, TransferProgress(completed: written + Int64(data.count), expected: expected)))
        }
        switch update {
        case .none: return
        case .failure(let error): finish(failingWith: error)
        case .success(let (handlers, progress)): Self.report(progress, to: handlers)
        }
    }

    override func finalOutcome(_ raw: RawResponse) -> RawResponse {
        var raw = raw
        let file = mutableState.withLock(owner: self) { state -> DownloadFile? in
            defer { state.download = nil }
            return state.download
        }
        guard raw.error == nil, let response = raw.response else {
            file?.discard()
            return raw
        }
        // An empty body never created a file: make an empty one.
        let temporary: URL
        do {
            var ready = try file ?? DownloadFile(attempt: 0)
            temporary = try ready.close()
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

    override func didEnd() {
        let file = mutableState.withLock(owner: self) { state -> DownloadFile? in
            defer { state.download = nil }
            return state.download
        }
        file?.discard()
    }
}
