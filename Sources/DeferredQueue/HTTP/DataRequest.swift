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
    /// The producing side of `outcome`: this request (and, through the
    /// session delegate, its running task) holds it. Released while pending,
    /// it settles the outcome as abandoned.
    private let resolver: Resolver<RawResponse>
    /// The first validation failure among the validators run so far.
    let validation = ValidationState()
    /// What the running transfer has received; guarded by its mutex.
    private let transfer = Mutex(Transfer())

    /// Everything the delegate callbacks update.
    private struct Transfer: Sendable {
        var task: URLSessionTask?
        var response: HTTPURLResponse?
        var data = Data()
        var retries = 0
        var redirects = 0
        var tooManyRedirects = false
        var progressHandlers: [ProgressHandler] = []
        /// Counts attempts, so a watchdog of an earlier attempt stands down.
        var attempt = 0
        /// When the current attempt last made progress (uptime nanoseconds).
        var lastActivity: UInt64 = 0
        /// The watchdog cancelled the task because it went silent.
        var timedOut = false
    }

    private struct ProgressHandler: Sendable {
        let queue: DispatchQueue
        let handler: @Sendable (TransferProgress) -> Void
    }

    init(session: Session, urlRequest: URLRequest) {
        self.session = session
        self.urlRequest = urlRequest
        self.start = Date()
        (outcome, resolver) = Deferred<RawResponse>.pending()
        resolver.onCancel { [weak self] in self?.cancelTask() }
    }

    /// A request that failed before it could start.
    init(session: Session, failedWith error: HTTPError) {
        self.session = session
        self.urlRequest = nil
        self.start = Date()
        (outcome, resolver) = Deferred<RawResponse>.pending()
        resolver.fulfill(RawResponse(request: nil, response: nil, data: nil, error: error, end: start))
    }

    /// The HTTP method, `GET` when unknown.
    var method: HTTPMethod {
        HTTPMethod(rawValue: urlRequest?.httpMethod ?? "GET")
    }

    /// Cancels the request.
    ///
    /// Every handler that has not run yet receives ``HTTPError/cancelled``;
    /// the task is cancelled. Idempotent, and does nothing once the request
    /// has completed.
    public func cancel() {
        outcome.cancel()
    }

    /// Calls `handler` with the download progress each time body bytes arrive.
    ///
    /// Updates for one request are dispatched in order, so they are monotonic
    /// on a serial `queue`. (A retried attempt starts again from zero.)
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
        return self
    }

    // MARK: - Transfer events (the session delegate's serial queue)

    func attach(_ task: URLSessionTask) {
        let attempt = transfer.withLock(owner: self) { transfer in
            transfer.task = task
            transfer.attempt += 1
            transfer.timedOut = false
            transfer.lastActivity = DispatchTime.now().uptimeNanoseconds
            return transfer.attempt
        }
        // Cancelled while the task was being created: the cancel hook saw no task.
        if !outcome.isPending { session.cancel(task) }
        watch(attempt, after: idleTimeout)
    }

    /// Seconds without progress before an attempt fails with `URLError.timedOut`.
    ///
    /// URLSession on Linux ignores `URLRequest.timeoutInterval` in favour of
    /// the session configuration's `timeoutIntervalForRequest` (checked on
    /// Swift 6.3.1: a 1 s request timeout waited the session's 20 s), so the
    /// request enforces its own timeout with this watchdog.
    private var idleTimeout: Double {
        let timeout = urlRequest?.timeoutInterval ?? Session.defaultTimeout
        return timeout.isFinite && timeout > 0 ? timeout : Session.defaultTimeout
    }

    /// Checks, `seconds` from now, whether `attempt` went silent for the whole
    /// idle timeout; if so cancels its task (reported as a time-out).
    private func watch(_ attempt: Int, after seconds: Double) {
        let deadline = DispatchTime.after(seconds: seconds) ?? .distantFuture
        DispatchQueue.global().asyncAfter(deadline: deadline) { [weak self] in
            guard let self else { return }
            let limit = UInt64(self.idleTimeout * 1e9)
            let verdict = self.transfer.withLock(owner: self) { transfer -> (task: URLSessionTask?, wait: Double?) in
                guard transfer.attempt == attempt, let task = transfer.task else { return (nil, nil) }
                let idle = DispatchTime.now().uptimeNanoseconds &- transfer.lastActivity
                guard idle >= limit else { return (nil, Double(limit - idle) / 1e9) }
                transfer.timedOut = true
                return (task, nil)
            }
            if let task = verdict.task { self.session.cancel(task) }
            if let wait = verdict.wait { self.watch(attempt, after: wait) }
        }
    }

    private func cancelTask() {
        // A task whose whole announced body has arrived is about to complete
        // on its own; cancelling it then is exactly the race that crashes
        // swift-corelibs-foundation (see `SessionDelegate.cancel`), and it
        // would gain nothing: the handlers already saw `.cancelled`.
        let task = transfer.withLock(owner: self) { transfer -> URLSessionTask? in
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
            transfer.lastActivity = DispatchTime.now().uptimeNanoseconds
        }
    }

    func didReceive(data: Data) {
        let (handlers, progress) = transfer.withLock(owner: self) { transfer in
            transfer.data.append(data)
            transfer.lastActivity = DispatchTime.now().uptimeNanoseconds
            let expected = transfer.response?.expectedContentLength ?? -1
            let progress = TransferProgress(completed: Int64(transfer.data.count), expected: expected > 0 ? expected : nil)
            return (transfer.progressHandlers, progress)
        }
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

    func didComplete(task: URLSessionTask, error: (any Error)?) {
        let finished = transfer.withLock(owner: self) { transfer in
            (response: transfer.response ?? task.response as? HTTPURLResponse, data: transfer.data,
             retries: transfer.retries, tooManyRedirects: transfer.tooManyRedirects, timedOut: transfer.timedOut)
        }
        let urlError = finished.timedOut
            ? URLError(.timedOut)
            : error.map { ($0 as? URLError) ?? URLError(.unknown, userInfo: [NSUnderlyingErrorKey: $0]) }
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
            transfer.timedOut = false
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
