import Dispatch
import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request and the handlers chained onto it.
///
/// ```swift
/// request(url)
///     .response { response in print(response.response?.statusCode ?? 0) }   // 1st
///     .validate()                                                            // 2nd
///     .responseJSON { response in print(response.result) }                   // 3rd
///     .responseString { response in print(response.value ?? "") }           // 4th
/// ```
///
/// ## The execution model
///
/// A request owns one serial queue, created suspended. Every handler —
/// `response…`, `validate`, `serializing…` — is enqueued on it when you call
/// it. When the task completes (after any retries the session's
/// ``RetryPolicy`` asks for), the outcome is stored once and the queue is
/// resumed once: the handlers run in the order you chained them, and each
/// receives exactly one outcome. A handler added after completion still runs,
/// after the earlier ones.
///
/// Serialization runs on the request's queue; the completion handler is then
/// dispatched to the `queue:` you pass — `.main` by default, as in Alamofire.
/// A Linux program must therefore run the main queue (an `async` `main` does,
/// as does `dispatchMain()`), or pass another queue.
///
/// Because ``validate()`` is enqueued like any handler, it affects only the
/// handlers chained *after* it (Alamofire 1.x semantics).
///
/// ## When it starts
///
/// The transfer starts when the first `response…` or `serializing…` handler,
/// or ``downloadProgress(queue:_:)``, is added — in a chain, right away — or
/// when you call ``resume()``. A request that gets none of these and is not
/// cancelled starts when its last reference goes, as a fire-and-forget request
/// (`_ = request(url, method: .post, body: ping)` is sent). As in Alamofire 5,
/// starting at the first handler lets the request pick its transfer mode:
/// URLSession collects the body unless a progress handler is already there.
///
/// ``cancel()`` at any moment gives every handler that has not run yet
/// ``HTTPError/cancelled`` and cancels the `URLSessionTask`.
public final class DataRequest: Sendable {
    /// The session running this request; kept alive by it.
    public let session: Session
    /// The request as built, or `nil` when the URL was invalid.
    public let urlRequest: URLRequest?
    /// When the request was created.
    let start: Date

    /// The request's suspended serial queue and its once-stored outcome.
    let outcome: Deferred<RawResponse>
    /// The producing side of `outcome`: this request (and, while its task
    /// runs, the session) holds it. Released while pending, it settles the
    /// outcome as abandoned.
    private let resolver: Resolver<RawResponse>
    /// The first validation failure among the validators run so far.
    let validation = ValidationState()
    /// What the running transfer has received; guarded by its mutex.
    private let transfer = Mutex(Transfer())

    /// Everything the transfer events update.
    private struct Transfer: Sendable {
        /// The transfer was started (or will never be: cancelled first).
        var started = false
        var task: URLSessionTask?
        var response: HTTPURLResponse?
        var data = Data()
        var retries = 0
        var redirects = 0
        var tooManyRedirects = false
        var progressHandlers: [ProgressHandler] = []
    }

    private struct ProgressHandler: Sendable {
        let queue: DispatchQueue
        let handler: @Sendable (TransferProgress) -> Void
    }

    init(session: Session, urlRequest: URLRequest) {
        self.session = session
        self.urlRequest = urlRequest
        self.start = Date()
        (outcome, resolver) = Deferred<RawResponse>.pending(targeting: session.rootQueue)
    }

    /// A request that failed before it could start.
    init(session: Session, failedWith error: HTTPError) {
        self.session = session
        self.urlRequest = nil
        self.start = Date()
        (outcome, resolver) = Deferred<RawResponse>.pending()
        resolver.fulfill(RawResponse(request: nil, response: nil, data: nil, error: error, end: start))
    }

    deinit {
        // Nothing was chained onto the request and it was not cancelled: it
        // still goes out, as a fire-and-forget request whose answer no one reads.
        let unstarted = transfer.withLock(owner: self) { !$0.started }
        if unstarted, outcome.isPending, let urlRequest {
            session.startUnobserved(urlRequest)
        }
    }

    /// The HTTP method, `GET` when unknown.
    var method: HTTPMethod {
        HTTPMethod(rawValue: urlRequest?.httpMethod ?? "GET")
    }

    /// Starts the transfer now, if it has not started yet.
    ///
    /// A request starts by itself when its first handler (`response…`,
    /// `serializing…`) or ``downloadProgress(queue:_:)`` is added, or, when
    /// it gets none of them, as its last reference goes. Call `resume()` to
    /// start a request you keep without handlers. Idempotent.
    ///
    /// - Returns: The request, for chaining.
    @discardableResult
    public func resume() -> Self {
        let first = transfer.withLock(owner: self) { transfer -> Bool in
            defer { transfer.started = true }
            return !transfer.started
        }
        if first { session.start(self) }
        return self
    }

    /// Cancels the request.
    ///
    /// Every handler that has not run yet receives ``HTTPError/cancelled``;
    /// the task is cancelled (a request not started yet never starts).
    /// Idempotent, and does nothing once the request has completed.
    public func cancel() {
        // `outcome` is internal: this is the only way it is cancelled, so the
        // task is cancelled here rather than from a cancel hook (which would
        // cost a closure, an array and a weak reference per request).
        if outcome.settle(.failure(DeferredError.cancelled), givingUp: true) {
            cancelTask()
        }
    }

    /// Calls `handler` with the download progress each time body bytes arrive,
    /// and starts the request.
    ///
    /// Updates for one request are dispatched in order, so they are monotonic
    /// on a serial `queue`. (A retried attempt starts again from zero.)
    ///
    /// Add it before the first response handler: a request started without
    /// a progress handler lets URLSession collect the body (one callback
    /// instead of one per chunk, measurably faster), and a progress handler
    /// added to such a request receives a single update when the body is
    /// complete.
    ///
    /// - Parameters:
    ///   - queue: Where `handler` runs (default `.main`).
    ///   - handler: Receives the bytes received so far and the expected total.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func downloadProgress(
        queue: DispatchQueue = .main,
        _ handler: @escaping @Sendable (TransferProgress) -> Void
    ) -> Self {
        transfer.withLock(owner: self) { $0.progressHandlers.append(ProgressHandler(queue: queue, handler: handler)) }
        return resume()
    }

    // MARK: - Transfer events (the session delegate's serial queue)

    /// Whether the next attempt streams its body through the session delegate.
    var streamsBody: Bool {
        transfer.withLock(owner: self) { !$0.progressHandlers.isEmpty }
    }

    /// The task of the current attempt.
    var currentTask: URLSessionTask? {
        transfer.withLock(owner: self) { $0.task }
    }

    func attach(_ task: URLSessionTask) {
        transfer.withLock(owner: self) { $0.task = task }
        // Cancelled while the task was being created: `cancelTask()` saw no task.
        if !outcome.isPending { session.cancel(task) }
    }

    private func cancelTask() {
        // A streamed task whose whole announced body has arrived is about to
        // complete on its own; cancelling it then is exactly the race that
        // crashes swift-corelibs-foundation (see `SessionDelegate.cancel`), and
        // it would gain nothing: the handlers already saw `.cancelled`.
        let task = transfer.withLock(owner: self) { transfer -> URLSessionTask? in
            transfer.started = true
            if let expected = transfer.response?.expectedContentLength, expected >= 0,
               Int64(transfer.data.count) >= expected {
                return nil
            }
            return transfer.task
        }
        if let task { session.cancel(task) }
    }

    func didReceive(response: URLResponse) {
        transfer.withLock(owner: self) { transfer in
            transfer.response = response as? HTTPURLResponse
        }
    }

    func didReceive(data: Data) {
        let (handlers, progress) = transfer.withLock(owner: self) { transfer in
            transfer.data.append(data)
            let expected = transfer.response?.expectedContentLength ?? -1
            let progress = TransferProgress(completed: Int64(transfer.data.count), expected: expected > 0 ? expected : nil)
            return (transfer.progressHandlers, progress)
        }
        report(progress, to: handlers)
    }

    private func report(_ progress: TransferProgress, to handlers: [ProgressHandler]) {
        for progressHandler in handlers {
            progressHandler.queue.async { progressHandler.handler(progress) }
        }
    }

    func shouldFollowRedirect(limit: Int) -> Bool {
        transfer.withLock(owner: self) { transfer in
            transfer.redirects += 1
            if transfer.redirects > limit { transfer.tooManyRedirects = true }
            return !transfer.tooManyRedirects
        }
    }

    /// The end of an attempt whose body URLSession collected.
    func didComplete(task: URLSessionTask, data: Data?, response: URLResponse?, error: (any Error)?) {
        let handlers = transfer.withLock(owner: self) { transfer -> [ProgressHandler] in
            transfer.response = response as? HTTPURLResponse
            transfer.data = data ?? Data()
            return transfer.progressHandlers
        }
        // Progress handlers added after the start get the whole body at once.
        if error == nil, let data, !handlers.isEmpty {
            report(TransferProgress(completed: Int64(data.count), expected: Int64(data.count)), to: handlers)
        }
        didComplete(task: task, error: error)
    }

    /// The end of an attempt: retry, or settle the outcome.
    func didComplete(task: URLSessionTask, error: (any Error)?) {
        let finished = transfer.withLock(owner: self) { transfer in
            (response: transfer.response ?? task.response as? HTTPURLResponse, data: transfer.data,
             retries: transfer.retries, tooManyRedirects: transfer.tooManyRedirects)
        }
        let urlError = error.map { ($0 as? URLError) ?? URLError(.unknown, userInfo: [NSUnderlyingErrorKey: $0]) }
        if retryIfAllowed(after: finished.retries, statusCode: finished.response?.statusCode, error: urlError) {
            return
        }
        let failure: HTTPError?
        if let urlError {
            failure = urlError.code == .cancelled ? .cancelled : .sessionTaskFailed(urlError)
        } else if finished.tooManyRedirects {
            failure = .sessionTaskFailed(URLError(.httpTooManyRedirects))
        } else {
            failure = nil
        }
        let data = finished.response == nil && finished.data.isEmpty ? nil : finished.data
        resolver.fulfill(RawResponse(
            request: task.currentRequest ?? urlRequest, response: finished.response,
            data: data, error: failure, end: Date()
        ))
        transfer.withLock(owner: self) { transfer in
            transfer.task = nil
            transfer.progressHandlers = []
        }
    }

    /// Schedules another attempt when the session's policy asks for one.
    private func retryIfAllowed(after retries: Int, statusCode: Int?, error: URLError?) -> Bool {
        guard outcome.isPending, error?.code != .cancelled,
              let policy = session.retryPolicy,
              let delay = policy.delay(beforeRetry: retries, method: method, statusCode: statusCode, error: error)
        else { return false }
        transfer.withLock(owner: self) { transfer in
            transfer.retries += 1
            transfer.redirects = 0
            transfer.tooManyRedirects = false
            transfer.response = nil
            transfer.data = Data()
            transfer.task = nil
        }
        let deadline = DispatchTime.after(seconds: delay) ?? .now()
        DispatchQueue.global().asyncAfter(deadline: deadline) { self.session.start(self) }
        return true
    }
}

/// The validation verdict handed from validators to the handlers after them.
/// Only blocks on the request's serial queue touch it.
final class ValidationState: Sendable {
    private let failure = Mutex<HTTPError?>(nil)

    /// The first failure recorded so far.
    var current: HTTPError? {
        failure.withLock(owner: self) { $0 }
    }

    /// Records `error` unless an earlier validator failed already.
    func record(_ error: HTTPError) {
        failure.withLock(owner: self) { failure in
            if failure == nil { failure = error }
        }
    }
}
