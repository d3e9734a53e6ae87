import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The handle of one URLSession attempt: cancels its task safely, and turns
/// the task's ending into the transport contract's terms.
///
/// swift-corelibs-foundation aborts the process ("Trying to access a
/// behaviour for a task that in not in the registry", TaskRegistry.swift)
/// when `URLSessionTask.cancel()` is sent to a task whose completion has been
/// delivered: the handle forgets its task at completion (on the delegate
/// queue) and cancels only a task it still holds.
final class URLSessionAttemptTask: HTTPTransportTask {
    private struct State {
        /// Released at completion: the task's delegate holds this handle, and
        /// a handle kept its task (and so the request) alive forever.
        var task: URLSessionTask?
        var completed = false
        /// The task was stopped to decline an authentication challenge.
        var declinedChallenge = false
        /// The downloaded file could not be taken over.
        var downloadError: (any Error)?
        /// The body so far, for a collecting attempt (`nil`: streamed).
        var collector: HTTPBodyCollector?
        /// The response head was reported to the session.
        var reportedHead = false
        /// The completion was reported early (a collected body past its
        /// limit): the task's own completion is not reported again.
        var reportedCompletion = false
        /// The response head's framing is ambiguous (``ResponseFraming``) and the task was stopped.
        var framingViolation: String?
        /// The server's credentials were refused (Apple platforms) and the task was stopped.
        var trustFailure: HTTPError?
        /// libcurl was about to send the request again with no body, and the task was stopped.
        var lostConnection = false
        /// The body's chunks so far, and their bytes (see ``countChunk(_:)``).
        var chunks = 0
        var chunkBytes = 0
        /// When the attempt last moved before its response head: its start,
        /// or request body sent (uptime nanoseconds; see ``interimHeadIsOverdue()``).
        var lastProgress = DispatchTime.now().uptimeNanoseconds
        /// Only interim heads came for longer than the idle timeout, and the task was stopped.
        var interimOverdue = false
    }

    private let state: Mutex<State>
    /// Whether the attempt collects its body here instead of streaming it.
    let collects: Bool
    /// The evaluator of the server's credentials, if the session asks for one.
    let serverTrustEvaluator: (any ServerTrustEvaluating)?
    /// The attempt's idle timeout, in seconds.
    let idleTimeout: Double

    /// - Parameters:
    ///   - task: The attempt's task, not resumed yet.
    ///   - collector: A collecting attempt's body collector; `nil` for a streamed attempt.
    ///   - serverTrustEvaluator: The attempt's ``HTTPTransportAttempt/serverTrustEvaluator``.
    ///   - idleTimeout: The attempt's idle timeout, in seconds.
    init(
        task: URLSessionTask, collector: HTTPBodyCollector?, serverTrustEvaluator: (any ServerTrustEvaluating)? = nil,
        idleTimeout: Double = .infinity
    ) {
        collects = collector != nil
        self.serverTrustEvaluator = serverTrustEvaluator
        self.idleTimeout = idleTimeout
        state = Mutex(State(task: task, collector: collector))
    }

    /// Records that the head is being reported; `false` when it already was.
    func reportHead() -> Bool {
        state.withLock(owner: self) { state in
            defer { state.reportedHead = true }
            return !state.reportedHead
        }
    }

    /// Sizes a collecting attempt's body for the length an unencoded head
    /// announces, as the AsyncHTTPClient transport does: one buffer, not a
    /// chunk at a time grown by copies (on a process's later requests, those
    /// copies reached for fresh pages each time).
    func expectBody(of head: ResponseHead) {
        guard collects, let length = HTTPBodyCollector.decodedLength(
            contentLength: head.expectedContentLength, contentEncoding: head.value(forHTTPHeaderField: "Content-Encoding")
        ).flatMap({ Int(exactly: $0) }), length > 0 else { return }
        state.withLock(owner: self) { state in
            guard let collector = state.collector, collector.body.isEmpty, !collector.exceededLimit else { return }
            state.collector = HTTPBodyCollector(limit: collector.limit, expectedLength: length)
        }
    }

    /// Adds a chunk to a collecting attempt's body (on the delegate queue).
    /// Returns the collector's error when the body first grows past the
    /// limit: the caller stops the task and reports the error. Later chunks
    /// (already decoded and queued by URLSession) are dropped and answer
    /// `nil`: stopping the task again for each would make the delegate
    /// queue wait on URLSession's work queue once per chunk, and the queued
    /// chunks of a compression bomb pile up meanwhile.
    func collect(_ data: Data) -> HTTPError? {
        state.withLock(owner: self) { state -> HTTPError? in
            guard state.collector?.exceededLimit == false else { return nil }
            do throws(HTTPError) {
                try state.collector?.append(data)
                return nil
            } catch {
                state.reportedCompletion = true
                return error
            }
        }
    }

    /// Records that the task is being stopped because its body's file
    /// changed length; `false` when that, or the
    /// completion, was recorded already.
    func stopChangedBodyFile() -> Bool {
        state.withLock(owner: self) { state in
            defer { state.reportedCompletion = true }
            return !state.reportedCompletion && !state.completed
        }
    }

    /// Counts a chunk of the body (on the delegate queue); the error to stop
    /// the task with, once, when the body comes in more than
    /// ``chunkAllowance`` chunks averaging under ``smallChunk`` bytes.
    ///
    /// corelibs starts a new timeout timer for every chunk and frees the
    /// old one only once its work queue is idle: a body of tiny chunks
    /// holds ~340 bytes a chunk for as long as it flows (2 GB for 6 MB of
    /// one-byte chunks), whatever the body limit. There is no way to hold
    /// corelibs back, so such a body fails here.
    func countChunk(_ size: Int) -> ChunkVerdict {
        state.withLock(owner: self) { state -> ChunkVerdict in
            state.chunks += 1
            state.chunkBytes += size
            guard state.chunks > Self.chunkAllowance, state.chunkBytes < state.chunks * Self.smallChunk else { return .take }
            guard !state.reportedCompletion else { return .drop }
            state.reportedCompletion = true
            return .stop(URLError(.dataLengthExceedsMaximum, userInfo: [
                NSLocalizedDescriptionKey: "The server sent the body in more than \(Self.chunkAllowance) chunks averaging under "
                    + "\(Self.smallChunk) bytes; URLSession on Linux holds memory for each chunk until the body pauses, so "
                    + "the transfer was stopped. Use AsyncHTTPClientTransport for this server.",
            ]))
        }
    }

    /// What to do with a chunk (``countChunk(_:)``).
    enum ChunkVerdict {
        case take
        /// Stop the task and complete with this error.
        case stop(URLError)
        /// The completion was reported: drop it.
        case drop
    }

    /// The chunks a body may come in before their average size is judged.
    static let chunkAllowance = 50_000
    /// The least average chunk size past ``chunkAllowance`` chunks.
    static let smallChunk = 64

    /// Some of the request's body was sent.
    func madeProgress() {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock(owner: self) { $0.lastProgress = now }
    }

    /// An interim (1xx) head arrived: whether nothing else moved for longer
    /// than the idle timeout, which then stops the task as timed out.
    /// corelibs restarts its idle timer on every header line, interim ones
    /// too, so a server sending a `100` every few seconds held a request
    /// for as long as it liked (AsyncHTTPClient's timeout ignores them).
    func interimHeadIsOverdue() -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock(owner: self) { state in
            guard Double(now &- state.lastProgress) / 1e9 > idleTimeout else { return false }
            state.interimOverdue = true
            return true
        }
    }

    /// Records that the task is being stopped to decline a challenge (on the delegate queue).
    func declineChallenge() {
        state.withLock(owner: self) { $0.declinedChallenge = true }
    }

    /// Records that the task is being stopped because its response head's
    /// framing is ambiguous (on the delegate queue).
    func refuseFraming(_ violation: String) {
        state.withLock(owner: self) { $0.framingViolation = violation }
    }

    /// Records that the server's credentials were refused (on the delegate queue).
    func refuseTrust(_ error: HTTPError) {
        state.withLock(owner: self) { $0.trustFailure = error }
    }

    /// Stops a task whose request libcurl is sending again, on a new
    /// connection, because the kept-alive one closed before any byte of a
    /// response arrived (a server may close an idle connection at any
    /// time). corelibs cannot give libcurl the body again: the new request
    /// would carry its head and no body, and wait for the timeout. (A
    /// request without a body libcurl sends again without asking.) The
    /// attempt fails with `networkConnectionLost` instead.
    func stopResend() {
        state.withLock(owner: self) { $0.lostConnection = true }
        cancel()
    }

    /// Records that a download's file could not be taken over (on the delegate queue).
    func failDownload(_ error: any Error) {
        state.withLock(owner: self) { $0.downloadError = error }
    }

    /// Cancels the task, unless it has completed, on ``cancellations``.
    ///
    /// Never on the delegate queue: corelibs' `cancel()` waits for its work
    /// queue, which may itself be waiting for the delegate queue to make room
    /// (``BoundedDelegateQueue``). Never enqueued behind the delegate queue's
    /// callbacks either: a compression bomb keeps queueing chunks. corelibs
    /// checks the task's state on its work queue, so a cancellation that
    /// arrives after the task completed there does nothing.
    func cancel() {
        guard let task = state.withLock(owner: self, { $0.completed ? nil : $0.task }) else { return }
        Self.cancellations.async {
            // Again here: this queue may have waited behind other tasks'
            // cancels (each waits for corelibs' work queue) while the task
            // completed; the handle knows at once, the task's `state` later.
            guard self.state.withLock(owner: self, { !$0.completed }) else { return }
            if task.state == .running { task.cancel() }
        }
    }

    /// Where tasks are cancelled: a queue of its own, which may wait for
    /// URLSession's work queue.
    private static let cancellations = DispatchQueue(label: "DeferredQueue.URLSessionTransport.cancel")

    /// Marks the task completed (on the delegate queue) and returns its
    /// response (`reportHead`: not reported yet), collected body (`nil` for
    /// a streamed attempt or when no response arrived) and error as the
    /// session should see them:
    ///
    /// - A collected body stopped at the limit is ``HTTPError/responseTooLarge(limit:)``.
    /// - A task stopped to decline a `401`/`407` challenge ends with
    ///   `URLError.cancelled` on corelibs: it completed with that response.
    /// - On Linux a transfer that ends early is `URLError.unknown`
    ///   ("transfer closed with N bytes remaining", libcurl's
    ///   `CURLE_PARTIAL_FILE`); it is reported as `networkConnectionLost`, as
    ///   on Apple platforms. A head corelibs cannot parse ("Failed writing
    ///   header") or one past libcurl's size cap ("Too large response
    ///   headers") is `badServerResponse`; a body whose content coding is
    ///   corrupt or unknown is `cannotDecodeContentData`; a status line
    ///   corelibs cannot parse ("unsupported URL", of an http URL) is
    ///   `badServerResponse`.
    /// - Ambiguous framing is `badServerResponse`, as on AsyncHTTPClient:
    ///   a head ``ResponseHeadRules`` refuses (without the response, which
    ///   AsyncHTTPClient's parser refuses before handing it over), and the
    ///   lengths and chunk sizes libcurl refuses itself (`URLError.unknown`,
    ///   "Invalid Content-Length", "… in chunked-encoding").
    /// - A TLS failure (also `URLError.unknown` there) gets the code Apple's
    ///   URLSession gives, read from libcurl's message (``URLSessionTLSFailure``).
    /// - When the delegate's completion carries no response, the task's own
    ///   `response` is used.
    /// `head`: a head no delegate method reported, to report now (read
    /// and judged here). `nil` when the completion was reported already (a
    /// body past its limit). `configuredFields`: the session configuration's
    /// `httpAdditionalHeaders`, which libcurl adds to the head (read only to
    /// explain a head it refused).
    func complete(
        response: URLResponse?, error: (any Error)?, configuredFields: @autoclosure () -> [AnyHashable: Any]?
    ) -> (head: ResponseHead?, body: Data?, error: (any Error)?)? {
        let ending = state.withLock(owner: self) { state in
            state.completed = true
            defer { (state.task, state.collector) = (nil, nil) }
            return state.reportedCompletion ? nil : (
                state.task, state.declinedChallenge, state.downloadError, state.collector, state.reportedHead,
                state.framingViolation, state.trustFailure, state.lostConnection, state.interimOverdue
            )
        }
        guard let (task, declined, downloadError, collector, reported, framing, trustFailure, lost, interimOverdue) = ending else {
            return nil
        }
        if let trustFailure { return (nil, nil, trustFailure) }
        if interimOverdue, (error as? URLError)?.code == .cancelled {
            return (nil, nil, URLError(.timedOut, userInfo: [
                NSLocalizedDescriptionKey: "The server sent only interim (1xx) responses for longer than the request's timeout "
                    + "of \(idleTimeout) s, and no final response.",
                NSURLErrorFailingURLErrorKey: task?.originalRequest?.url as Any,
            ]))
        }
        // Cancelled, or aborted by the unreadable stream (`URLError.unknown`).
        if lost, let code = (error as? URLError)?.code, code == .cancelled || code == .unknown {
            let url = task?.originalRequest?.url
            return (nil, nil, URLError(.networkConnectionLost, userInfo: [
                NSLocalizedDescriptionKey: "The server closed the kept-alive connection before it answered. URLSession on Linux "
                    + "cannot send a request's body again, so the request was not sent again; a retry policy retries "
                    + "idempotent requests.",
                NSURLErrorFailingURLErrorKey: url as Any,
            ]))
        }
        let response = (response ?? task?.response) as? HTTPURLResponse
        if let framing {
            return (nil, nil, Self.badServerResponse(framing, url: response?.url ?? task?.originalRequest?.url))
        }
        // Only an interim head came (corelibs keeps it as the task's
        // response): no response, and a close there is a lost connection,
        // which corelibs calls a bad response.
        if !reported, let response, (100..<200).contains(response.statusCode) {
            guard error == nil || (error as? URLError)?.code == .badServerResponse else { return (nil, nil, Self.naming(error, url: task?.originalRequest?.url)) }
            return (nil, nil, URLError(.networkConnectionLost, userInfo: [
                NSLocalizedDescriptionKey: "The server closed the connection after an interim \(response.statusCode) response, "
                    + "before the final one.",
                NSURLErrorFailingURLErrorKey: task?.originalRequest?.url as Any,
            ]))
        }
        // Read here when no head was reported (and so read) before: a
        // declined 401, a download task on Apple platforms.
        var unreported: ResponseHead?
        if !reported, let response {
            switch ResponseHeadRules.read(response, answering: task?.currentRequest) {
            case .refused(let violation):
                return (nil, nil, Self.badServerResponse(violation, url: response.url ?? task?.originalRequest?.url))
            case .accepted(let head):
                unreported = head
            }
        }
        // Read only for an error (corelibs copies a task's request each time it is asked for).
        let url = { task?.currentRequest?.url ?? task?.originalRequest?.url }
        let outcome = Self.outcome(
            response: response, error: error, url: url(),
            headSize: task?.originalRequest.map { Self.headSize($0, configuredFields: configuredFields()) },
            declined: declined, downloadError: downloadError
        )
        let body = outcome.response == nil ? nil : collector?.body
        return (outcome.response == nil ? nil : unreported, body, Self.naming(outcome.error, url: url()))
    }

    /// `error`, naming `url` if it is a `URLError` that names none
    /// (corelibs' timeout does not), as AsyncHTTPClient's errors do.
    static func naming(_ error: (any Error)?, url: @autoclosure () -> URL?) -> (any Error)? {
        guard let urlError = error as? URLError, urlError.failingURL == nil, urlError.code != .cancelled, let url = url()
        else { return error }
        return URLError(urlError.code, userInfo: urlError.userInfo.merging([NSURLErrorFailingURLErrorKey: url]) { kept, _ in kept })
    }

    /// The response and error as the session should see them (see ``complete(response:error:)``).
    /// `url` is read only for an error that names it (corelibs copies a
    /// task's request each time it is asked for).
    static func outcome(
        response: HTTPURLResponse?, error: (any Error)?, url: @autoclosure () -> URL?, headSize: @autoclosure () -> Int?,
        declined: Bool, downloadError: (any Error)?
    ) -> (response: HTTPURLResponse?, error: (any Error)?) {
        if error == nil, let downloadError {
            return (response, URLError(.cannotMoveFile, userInfo: [NSUnderlyingErrorKey: downloadError]))
        }
        guard let urlError = error as? URLError else { return (response, error) }
        if declined, urlError.code == .cancelled, response != nil { return (response, nil) }
        #if canImport(FoundationNetworking)
        // The session sends only http(s) URLs: corelibs says "unsupported URL"
        // of a status line it cannot parse (a code of four digits, letters).
        if urlError.code == .unsupportedURL, let scheme = url()?.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            var userInfo = urlError.userInfo
            userInfo[NSUnderlyingErrorKey] = urlError
            userInfo[NSLocalizedDescriptionKey] = "The server's status line could not be parsed."
            return (response, URLError(.badServerResponse, userInfo: userInfo))
        }
        #endif
        guard urlError.code == .unknown else { return (response, error) }
        let message = urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        var userInfo = urlError.userInfo
        userInfo[NSUnderlyingErrorKey] = urlError
        if Self.malformedResponseMessages.contains(where: message.hasPrefix) || message.hasSuffix("in chunked-encoding") {
            return (response, URLError(.badServerResponse, userInfo: userInfo))
        }
        // libcurl's generic words for a head line it could not store: a
        // continuation line before any field ("bad argument"), a line past
        // its 100 KiB cap ("Out of memory"); or for a request head past its
        // 1 MiB cap, which it refuses to build ("Out of memory"): the
        // request's fault, which no retry mends.
        if response == nil, Self.unstorableHeadLineMessages.contains(message) {
            if let size = headSize(), size > Self.largestRequestHead {
                userInfo[NSLocalizedDescriptionKey] = "libcurl refused to build the request's head of about \(size) bytes "
                    + "(its URL and header fields; libcurl's limit is 1 MiB): \(message). Send less in the URL and "
                    + "fields (a body carries any size), or use AsyncHTTPClientTransport."
                return (response, URLError(.dataLengthExceedsMaximum, userInfo: userInfo))
            }
            userInfo[NSLocalizedDescriptionKey] = "libcurl could not store a line of the response head "
                + "(a continuation line before any field, or a line over 100 KiB): \(message)."
            return (response, URLError(.badServerResponse, userInfo: userInfo))
        }
        // A corrupt or unknown content coding: said so, as on AsyncHTTPClient,
        // rather than a lost connection that a retry policy would retry.
        if Self.undecodableContentMessages.contains(where: message.hasPrefix) {
            return (response, URLError(.cannotDecodeContentData, userInfo: userInfo))
        }
        // libcurl's decoders fail some bodies (bytes after the end of a gzip
        // or deflate stream, a corrupt brotli one) with no words of their
        // own: corelibs gives the error code's generic text, or, in a chunked
        // body, libcurl says only that the chunk parser could not pass the
        // bytes on. A failed write to corelibs would end the same way, but
        // libcurl keeps the first words said and that one says "Failure
        // writing output to destination" first; and libcurl decodes only a
        // declared coding, so one is required. A connection closed inside a
        // chunk says "transfer closed with outstanding read data remaining".
        if Self.silentDecoderFailureMessages.contains(message),
            let coding = response?.value(forHTTPHeaderField: "Content-Encoding"), !coding.isEmpty, coding.lowercased() != "identity" {
            userInfo[NSLocalizedDescriptionKey] = "libcurl could not decode the body's \(String(coding.prefix(64)).debugDescription) "
                + "content coding (corrupt, or bytes after the end of the compressed stream): \(message)."
            return (response, URLError(.cannotDecodeContentData, userInfo: userInfo))
        }
        if response != nil || Self.lostConnectionMessages.contains(where: message.hasPrefix) {
            return (response, URLError(.networkConnectionLost, userInfo: userInfo))
        }
        if let failure = URLSessionTLSFailure(libcurlMessage: message) {
            return (response, failure.urlError(replacing: urlError, url: url()))
        }
        return (response, error)
    }

    /// The starts of libcurl's messages for a connection that ended under
    /// it: a body cut short, or a reset or close met while sending the
    /// request ("Send failure: Broken pipe" on a kept-alive connection the
    /// server had closed) or reading the response.
    static let lostConnectionMessages = ["transfer closed with", "Send failure:", "Recv failure:"]

    /// The starts of libcurl's messages for a response it refused as
    /// malformed (its framing, or a head corelibs or libcurl cannot parse, or
    /// one past libcurl's size cap): `badServerResponse`, as AsyncHTTPClient's
    /// parser says, not `URLError.unknown`.
    private static let malformedResponseMessages = [
        "Invalid Content-Length", "Failed writing header", "Too large response headers",
        "Nul byte in header", "Header without colon", "Unsupported HTTP version", "Weird server reply",
    ]

    /// Past this many bytes of URL and fields, libcurl may refuse a request
    /// head (its cap is 1 MiB with the request line and framing).
    private static let largestRequestHead = 1_000_000

    /// The bytes of `request`'s URL and header fields, the configuration's
    /// included (off the usual path).
    private static func headSize(_ request: URLRequest, configuredFields: [AnyHashable: Any]?) -> Int {
        let fields = request.allHTTPHeaderFields ?? [:]
        let own = Set(fields.keys.map { $0.lowercased() })
        // A configured field the request sets itself is sent once, as the request's.
        let configured = (configuredFields ?? [:]).reduce(0) { size, field in
            let name = "\(field.key)"
            return own.contains(name.lowercased()) ? size : size + name.utf8.count + "\(field.value)".utf8.count + 4
        }
        return (request.url?.absoluteString.utf8.count ?? 0) + configured
            + fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 4 }
    }

    /// libcurl's whole messages for a head line it could not store (above).
    private static let unstorableHeadLineMessages: Set = ["A libcurl function was given a bad argument", "Out of memory"]

    /// The starts of libcurl's messages for a body whose content coding it
    /// could not undo (corrupt, unknown, or more layers than it allows).
    private static let undecodableContentMessages = [
        "Error while processing content unencoding", "Unrecognized content encoding type",
        "Unrecognized or bad HTTP Content or Transfer-Encoding", "Reject response due to more than",
    ]

    /// libcurl's whole messages for a content decoder that failed silently
    /// (above): a body framed by length, a chunked body.
    private static let silentDecoderFailureMessages: Set = [
        "Failed writing received data to disk/application", "Failed reading the chunked-encoded stream",
    ]

    /// `URLError.badServerResponse` saying why the response was refused.
    private static func badServerResponse(_ reason: String, url: URL?) -> URLError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: reason]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.badServerResponse, userInfo: userInfo)
    }
}
