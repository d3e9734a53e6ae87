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
/// cancellation the partial file is removed (unless you ask for resume data);
/// on failure it is kept when the download can resume.
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
/// A download that fails, or that you cancel with
/// ``cancel(producingResumeData:)``, keeps what it received and offers
/// ``resumeData``; ``Session/download(resumingWith:interceptor:shouldAutomaticallyResume:to:)`` asks
/// the server for the rest (`Range`, `If-Range`). See <doc:Transfers>.
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

    init(
        session: Session, urlRequest: URLRequest, interceptor: (any RequestInterceptor)?, destination: Destination?,
        resumingFrom point: ResumePoint? = nil, madeFrom convertible: (any URLRequestConvertible)? = nil
    ) {
        self.destination = destination
        super.init(session: session, urlRequest: urlRequest, interceptor: interceptor, kind: .download(fileURL: nil), madeFrom: convertible)
        if let point { mutableState.withLock(owner: self) { $0.resumePoint = point } }
    }

    init(session: Session, failedWith error: HTTPError, madeFrom convertible: (any URLRequestConvertible)? = nil) {
        self.destination = nil
        super.init(session: session, failedWith: error, urlRequest: nil, madeFrom: convertible)
    }

    /// A download released unstarted is not sent: nobody would read the file.
    override func unobservedCopy(on session: Session) -> Request? { nil }

    /// What to resume this download from with ``Session/download(resumingWith:interceptor:shouldAutomaticallyResume:to:)``,
    /// once it failed or was cancelled with ``cancel(producingResumeData:)``;
    /// `nil` while it runs, after success, and when the server could not
    /// send the rest (see <doc:Transfers>).
    public var resumeData: Data? { mutableState.withLock(owner: self) { $0.resumeData } }

    /// Where the downloaded file is (Alamofire's `fileURL`): set once the
    /// request finished and its file was moved to its destination; `nil`
    /// before, and for a download that failed.
    public var fileURL: URL? {
        mutableState.withLock(owner: self) { state in
            guard case .download(let fileURL) = state.kind else { return nil }
            return fileURL
        }
    }

    /// Cancels the download; with `producingResumeData`, keeps the part
    /// received so far and sets ``resumeData`` before the handlers run.
    ///
    /// The cancellation runs on the transport's callback queue, between two
    /// chunks, so the kept file holds every byte handed over.
    @discardableResult
    public func cancel(producingResumeData: Bool) -> Self {
        guard producingResumeData else {
            cancel()
            return self
        }
        callbackQueue.async {
            self.mutableState.withLock(owner: self) { $0.cancelProducesResumeData = true }
            self.cancel()
        }
        return self
    }

    /// Cancels the download, keeps the part received so far, and calls
    /// `completionHandler` with the ``resumeData`` (`nil` when there is
    /// nothing to resume) once, before the request's handlers run (as
    /// Alamofire does): on the transport's callback queue, or on the thread
    /// of a ``Request/cancel()`` made elsewhere that ended the request first.
    @discardableResult
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (_ data: Data?) -> Void) -> Self {
        callbackQueue.async {
            self.mutableState.withLock(owner: self) { state in
                state.cancelProducesResumeData = true
                state.resumeDataCompletion = completionHandler
            }
            // The cancellation calls it once the resume data is recorded (`releaseCancelled`).
            self.cancel()
            // A request that had ended already: nothing recorded it.
            if let completion = self.mutableState.withLock(owner: self, { $0.takeResumeDataCompletion() }) {
                completion(self.resumeData)
            }
        }
        return self
    }

    /// A cancelled download's file: kept for resuming when asked, otherwise removed.
    override func releaseCancelled(_ file: DownloadFile?) {
        let (produces, request, response) = mutableState.withLock(owner: self) {
            ($0.cancelProducesResumeData, $0.request, $0.response)
        }
        guard produces else {
            file?.discard()
            if let partial = mutableState.withLock(owner: self, { $0.takeResumePoint() }) {
                try? FileManager.default.removeItem(at: partial.data.partialFile)
            }
            return
        }
        keepForResuming(file, request: request, response: response)
        if let completion = mutableState.withLock(owner: self, { $0.takeResumeDataCompletion() }) {
            completion(resumeData)
        }
    }

    /// Keeps `file` (when it can be resumed) and records the resume data.
    private func keepForResuming(_ file: DownloadFile?, request: URLRequest?, response: ResponseHead?) {
        // Only the session's own file, with bytes, of an entity the server can continue.
        let validator = DownloadResumeData.validator(request: request, response: response)
        var keptName: String?
        if let file, file.isWrittenHere, file.length > 0, validator != nil {
            keptName = try? file.keepForResuming()
        } else {
            file?.discard()
        }
        mutableState.withLock(owner: self) {
            $0.recordResumeData(file: file, keptName: keptName, validator: validator, request: request, response: response)
        }
    }

    /// A download's validators judge it on the handler queue, once its file
    /// is at its destination: their failures do not reach the retriers.
    override func addValidation(inline: Bool = false, _ check: @escaping RawValidation) {
        appendValidationStep { raw, response in check(raw.request, response, nil) }
    }

    /// The body is the downloaded file: empty when there is none or it has no bytes.
    override func addContentValidation(_ check: @escaping @Sendable (ResponseHead, _ isEmpty: Bool) -> Result<Void, any Error>) {
        appendValidationStep { raw, response in
            let size = raw.fileURL.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber }
            return check(response, (size?.int64Value ?? 0) == 0)
        }
    }

    override func attempt(_ number: Int, didDownload bytes: Int64, of expected: Int64?) {
        let sessionLimit = streamedBodyLimit
        let monitor = eventMonitor
        perform(mutableState.withLock(owner: self) { state in
            let action = state.downloadGrew(to: bytes, of: expected, attempt: number, sessionLimit: sessionLimit, monitored: monitor != nil)
            if let monitor, case .report(let progress, _) = action { monitor.request(self, didWriteData: progress) }
            return action
        })
    }

    override func attempt(_ number: Int, didFinishDownloadingTo file: URL) {
        switch mutableState.withLock(owner: self, { $0.transportDownloaded(to: file, attempt: number) }) {
        case .keep(let replaced): replaced?.discard()
        case .remove(let file): try? FileManager.default.removeItem(at: file)
        }
    }

    override func consume(_ data: Data, attempt number: Int) {
        let sessionLimit = streamedBodyLimit
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
            if let handedOut = consume handedOut {
                file = handedOut
            } else {
                file = try startFile()
            }
        } catch let error as HTTPError {
            return finish(failingWith: error)
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
        let monitor = eventMonitor
        let written = mutableState.withLock(owner: self) { state in
            let action = state.downloadChunkWritten(file, attempt: number, monitored: monitor != nil)
            if let monitor, case .report(let progress, _) = action {
                monitor.request(self, didReceive: data)
                monitor.request(self, didWriteData: progress)
            }
            return action
        }
        switch written {
        case .report(let progress, let handlers): Self.report(progress, to: handlers)
        case .discard(let file): file.discard()
        case .none: break
        }
    }

    /// The file of an attempt whose first chunk arrived: after a resumed
    /// download's partial file when the response continues it, else new.
    private func startFile() throws -> DownloadFile {
        let monitor = eventMonitor
        let start = mutableState.withLock(owner: self) { state in
            let action = state.startDownloadFile()
            if let monitor, case .resume(let point, _) = action {
                let whole = state.response?.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init)?.complete
                monitor.request(self, didResumeAtOffset: point.data.bytes, expectedTotalBytes: whole)
            }
            return action
        }
        switch start {
        case .resume(let point, let length):
            do {
                return try DownloadFile(resuming: point.data.partialFile, at: point.data.bytes, expecting: length)
            } catch {
                throw HTTPError.downloadedFileMoveFailed(error: error, source: point.data.partialFile, destination: nil)
            }
        case .fresh(let partial):
            if let partial { try? FileManager.default.removeItem(at: partial) }
            return try DownloadFile()
        case .mismatch(let partial, let reason):
            try? FileManager.default.removeItem(at: partial)
            throw Self.brokenContinuation("the server's 206 response does not continue the partial download: \(reason)")
        }
    }

    /// A resumed download's failure: the server's `206` is not the rest of the entity.
    private static func brokenContinuation(_ reason: String) -> HTTPError {
        .sessionTaskFailed(URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: reason]))
    }

    private static var writeFailure: HTTPError {
        .downloadedFileMoveFailed(error: CocoaError(.fileWriteUnknown), source: nil, destination: nil)
    }

    override func finalOutcome(_ raw: RawResponse, file: DownloadFile?) -> RawResponse {
        var raw = raw
        guard raw.error == nil, let head = raw.head else {
            if case .responseTooLarge = raw.error {
                // Resuming would only reach the limit again.
                file?.discard()
            } else {
                keepForResuming(file, request: raw.request, response: raw.head)
                raw.resumeData = resumeData
            }
            return raw
        }
        // A partial file no attempt took over (an empty body): not needed.
        if let partial = mutableState.withLock(owner: self, { $0.takeResumePoint() }) {
            try? FileManager.default.removeItem(at: partial.data.partialFile)
            // A `206` answered the range with nothing: it continued nothing.
            if head.statusCode == 206 {
                file?.discard()
                raw.error = Self.brokenContinuation("the server's 206 response does not continue the partial download: it sent no bytes")
                return raw
            }
        }
        // A resumed file must end where the server's range said it would.
        if let file, file.expectedLength >= 0, file.length != file.expectedLength {
            let expected = file.expectedLength
            file.discard()
            raw.error = Self.brokenContinuation(
                "the server's 206 response sent \(file.length < expected ? "less" : "more") than the range it announced"
            )
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
        let (destination, options) = destination?(temporary, head.response)
            ?? (FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueue-download-\(UUID().uuidString)"), [])
        do {
            try DownloadMove.move(temporary, to: destination, options: options)
            raw.fileURL = destination
            mutableState.withLock(owner: self) { $0.kind = .download(fileURL: destination) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            raw.error = .downloadedFileMoveFailed(error: error, source: temporary, destination: destination)
        }
        if let monitor = eventMonitor, let task {
            monitor.request(self, didFinishDownloadingUsing: task, with: raw.fileURL.map { .success($0) } ?? .failure(raw.error ?? .abandoned))
            if let destination = raw.fileURL { monitor.request(self, didCreateDestinationURL: destination) }
        }
        return raw
    }
}
