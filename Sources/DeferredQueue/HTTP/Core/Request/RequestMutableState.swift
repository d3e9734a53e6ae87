import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything about one ``Request`` that changes, in one place, behind the
/// request's one lock (`Request.mutableState`).
///
/// The methods are the state machine's transitions: each checks that it is
/// allowed, changes the state, and returns what the caller must do *after*
/// releasing the lock (cancel a task, settle the outcome, call handlers).
struct RequestMutableState: Sendable {
    var state: RequestState = .initialized
    /// Where handlers are enqueued: the request's outcome, or the last
    /// `validate()` step derived from it (validation affects later handlers only).
    var tail: Deferred<RawResponse>
    /// The number of the current attempt; events of earlier ones are ignored.
    var attempt = 0
    /// The current attempt's transport task, while one runs.
    var task: (any HTTPTransportTask)?
    /// The request as the latest attempt sent it.
    var request: URLRequest?
    /// The latest attempt's request before adapters and session defaults:
    /// what redirects and authentication build the next attempt from.
    var base: URLRequest?
    /// The latest attempt's response head.
    var response: HTTPURLResponse?
    /// The body received so far by a streamed attempt, within the request's limit.
    var body = HTTPBodyCollector(limit: 0)
    var retryCount = 0
    var redirectCount = 0
    /// Set by `redirect(using:)`; the session's when `nil`.
    var redirector: Redirector?
    /// Set by `authenticate(…)`: answers one `Basic` challenge from the request's origin.
    var credential: URLCredential?
    var credentialTried = false
    var progressHandlers: [ProgressHandler] = []
    /// Set by `maximumResponseBodySize(_:)`; the session's when `nil`.
    var maximumResponseBodySize: Int?
    /// The file streamed as the body of every attempt (uploads).
    var bodyFile: URL?
    /// A multipart form encoded in memory, sent as the body of every attempt.
    var encodedBody: Data?
    /// Files to remove when the request ends.
    var temporaryFiles: [URL] = []
    var uploadProgressHandlers: [ProgressHandler] = []
    /// A download's file for the current attempt, and its open handle.
    var download: DownloadFile?
    /// The decoded bytes the current attempt's stream handed over, against its limit.
    var streamedBytes: Int64 = 0
    /// A stream's chunk handlers and head validators.
    var streamHandlers: [StreamHandler] = []
    var headValidators: [Request.Validation] = []

    init(tail: Deferred<RawResponse>) {
        self.tail = tail
    }

    /// initialized → resumed. `false` when the request already left `initialized`.
    mutating func resume() -> Bool {
        guard state == .initialized else { return false }
        state = .resumed
        return true
    }

    /// Starts attempt number `attempt + 1` sending `request`, unless the
    /// request stopped running meanwhile (cancelled, timed out).
    /// `bodyLimit`: the most body bytes the attempt may hold in memory.
    mutating func beginAttempt(
        sending request: URLRequest, base: URLRequest, bodyLimit: Int
    ) -> (number: Int, collectsBody: Bool)? {
        guard state == .resumed else { return nil }
        attempt += 1
        self.request = request
        self.base = base
        response = nil
        body = HTTPBodyCollector(limit: bodyLimit)
        streamedBytes = 0
        return (attempt, progressHandlers.isEmpty && uploadProgressHandlers.isEmpty)
    }

    /// Records the task of attempt `number`. `false` when that attempt is
    /// already over (the request was cancelled while the task was created):
    /// the caller cancels the task.
    mutating func attach(_ task: any HTTPTransportTask, toAttempt number: Int) -> Bool {
        guard state == .resumed, attempt == number else { return false }
        self.task = task
        return true
    }

    /// Whether an event of attempt `number` still matters.
    func isCurrent(_ number: Int) -> Bool {
        state == .resumed && attempt == number
    }

    /// Ends attempt `number`, returning what the decision after it needs.
    mutating func completeAttempt(_ number: Int, body: Data?) -> CompletedAttempt? {
        guard isCurrent(number) else { return nil }
        task = nil
        let completed = CompletedAttempt(
            request: request, base: base, response: response, body: body ?? self.body.take(),
            redirector: redirector,
            credential: credentialTried ? nil : credential, progressHandlers: progressHandlers,
            maximumResponseBodySize: maximumResponseBodySize
        )
        return completed
    }

    /// resumed → finished. Returns the running task to cancel (if any), or
    /// `nil` when the request is not running.
    mutating func finish() -> (any HTTPTransportTask)?? {
        guard state == .resumed else { return nil }
        state = .finished
        defer { task = nil; progressHandlers = [] }
        return .some(task)
    }

    /// initialized or resumed → cancelled. Returns whether it was running,
    /// and what to cancel; `nil` when already final.
    mutating func cancel() -> (wasRunning: Bool, task: (any HTTPTransportTask)?)? {
        guard !state.isFinal else { return nil }
        let wasRunning = state == .resumed
        state = .cancelled
        defer { task = nil; progressHandlers = [] }
        return (wasRunning, task)
    }
}

/// A progress handler and the queue it runs on.
struct ProgressHandler: Sendable {
    let queue: DispatchQueue
    let handler: @Sendable (TransferProgress) -> Void
}

/// What is known when an attempt ends, for the decision that follows:
/// follow a redirect, answer a challenge, retry, or finish.
///
/// A class: it is handed from the lock to the decision and on to the outcome,
/// and each copy of a struct holding two `URLRequest`s (a resilient type,
/// copied through its value witnesses) cost more than this one allocation.
final class CompletedAttempt: Sendable {
    /// As sent.
    let request: URLRequest?
    /// Before adapters and session defaults.
    let base: URLRequest?
    let response: HTTPURLResponse?
    let body: Data
    let redirector: Redirector?
    /// The credential, if it has not been sent yet.
    let credential: URLCredential?
    let progressHandlers: [ProgressHandler]
    /// The request's own body limit, if it set one.
    let maximumResponseBodySize: Int?

    init(
        request: URLRequest?, base: URLRequest?, response: HTTPURLResponse?, body: Data,
        redirector: Redirector?, credential: URLCredential?, progressHandlers: [ProgressHandler],
        maximumResponseBodySize: Int?
    ) {
        self.request = request
        self.base = base
        self.response = response
        self.body = body
        self.redirector = redirector
        self.credential = credential
        self.progressHandlers = progressHandlers
        self.maximumResponseBodySize = maximumResponseBodySize
    }
}
