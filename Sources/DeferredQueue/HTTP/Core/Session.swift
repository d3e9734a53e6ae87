import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Creates and runs ``DataRequest``s over one `URLSession`.
///
/// ```swift
/// let session = Session(retryPolicy: RetryPolicy(retryLimit: 2))
/// session.request("https://example.com/items.json")
///     .validate()
///     .responseJSON { response in print(response.result) }
/// ```
///
/// A request starts when its first handler is added (or ``DataRequest/resume()``
/// is called, or, with neither, when it is released). While its task runs, the
/// session keeps the request alive and the request keeps the session alive,
/// so fire-and-forget requests on a temporary session complete instead of
/// being cancelled. A custom session invalidates its `URLSession` when the
/// last reference to it (including those of its running requests) goes.
///
/// ## Threading
///
/// All `URLSession` callbacks of one session arrive on one serial queue. Each
/// request's queue targets that queue, so validation and serialization run
/// right after the request completes, on the same thread (no thread hop),
/// and those of different requests run one at a time — as with Alamofire 5's
/// root queue. Completion handlers then run on the `queue:` they name.
///
/// - Warning: Custom validators and `Decodable` initialisers run on that
///   serial queue: keep them short, and never make them wait for another
///   request of the same session, which could then never complete.
public final class Session: Sendable {
    /// The session used by the free function ``request(_:method:headers:body:timeout:)``.
    public static let `default` = Session()

    /// The request timeout applied when none is given (unless the session's
    /// configuration sets another `timeoutIntervalForRequest`): a request
    /// that receives nothing for this long fails with `URLError.timedOut`.
    public static let defaultTimeout: Double = 60

    /// The policy consulted before a failed attempt is delivered.
    public let retryPolicy: RetryPolicy?

    let urlSession: URLSession
    let delegate: SessionDelegate
    /// The serial queue under the delegate queue. Every request's queue
    /// targets it, so a request settled by a delegate callback runs its
    /// handlers (validation, serialization) right after that callback on the
    /// same thread, instead of waking another one; handlers of different
    /// requests therefore run one at a time, as in Alamofire 5.
    let rootQueue = DispatchQueue(label: "DeferredQueue.Session.root")

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - configuration: The `URLSession` configuration (headers, cookies,
    ///     caching, connection limits). The session uses a copy.
    ///   - retryPolicy: When to retry failed attempts; `nil` never retries.
    ///
    /// - Note: On Linux (swift-corelibs-foundation) the session does not use
    ///   the configuration's `urlCache`: see ``withoutURLCacheOnLinux(_:)``.
    public init(configuration: URLSessionConfiguration = .default, retryPolicy: RetryPolicy? = nil) {
        let configuration = Self.withoutURLCacheOnLinux(configuration)
        let delegate = SessionDelegate()
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "DeferredQueue.Session.delegate"
        delegateQueue.underlyingQueue = rootQueue
        self.delegate = delegate
        self.retryPolicy = retryPolicy
        self.urlSession = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    /// A copy of `configuration`, without `urlCache` on Linux.
    ///
    /// swift-corelibs-foundation looks a data task up in the cache
    /// asynchronously before it starts, and a `URLSessionTask.cancel()` that
    /// lands during that lookup can later abort the whole process ("Trying to
    /// access a behaviour for a task that in not in the registry",
    /// TaskRegistry.swift). Checked on Swift 6.3.1 with the cancel-race test
    /// under AddressSanitizer: with the cache, a crash within 1 to 30 runs
    /// (four times in a row); without it, none in 40. The lookup also costs
    /// every request time. Apple platforms keep the configuration's cache.
    static func withoutURLCacheOnLinux(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        #if canImport(FoundationNetworking)
        copy.urlCache = nil
        #endif
        return copy
    }

    deinit {
        // No request of this session is running: each one keeps it alive.
        urlSession.finishTasksAndInvalidate()
    }

    /// Creates a request, which starts when its first handler is added.
    ///
    /// An invalid URL does not crash and creates no task: every handler of
    /// the returned request receives ``HTTPError/invalidURL(_:)``.
    ///
    /// - Parameters:
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method.
    ///   - headers: Header fields to send.
    ///   - body: The request body.
    ///   - timeout: Seconds without any data before the request fails with a
    ///     time-out; ``defaultTimeout`` when `nil`. (On Linux, rounded up to
    ///     whole seconds.)
    /// - Returns: The request, ready for handlers; the first one starts it.
    public func request(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeout: Double? = nil
    ) -> DataRequest {
        let resolved: URL
        do {
            resolved = try url.asURL()
        } catch {
            return DataRequest(session: self, failedWith: error as? HTTPError ?? .invalidURL("\(url)"))
        }
        var urlRequest = URLRequest(url: resolved)
        urlRequest.httpMethod = method.rawValue
        for header in headers {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        urlRequest.httpBody = body
        urlRequest.timeoutInterval = timeout ?? Self.defaultTimeout
        return request(urlRequest)
    }

    /// Creates a request from a prepared `URLRequest`; the first handler starts it.
    ///
    /// Its `timeoutInterval` is the idle timeout (see
    /// ``request(_:method:headers:body:timeout:)``).
    ///
    /// A request whose URL is missing or not `http`/`https` with a host gets
    /// ``HTTPError/invalidURL(_:)``.
    public func request(_ urlRequest: URLRequest) -> DataRequest {
        guard let url = urlRequest.url, (try? url.asURL()) != nil else {
            return DataRequest(session: self, failedWith: .invalidURL(urlRequest.url?.absoluteString ?? "(no URL)"))
        }
        var urlRequest = urlRequest
        let timeout = Self.transportTimeout(urlRequest.timeoutInterval)
        // Assigned only when it changes: an assigned timeout overrides the
        // configuration's `timeoutIntervalForRequest`.
        if timeout != urlRequest.timeoutInterval { urlRequest.timeoutInterval = timeout }
        return DataRequest(session: self, urlRequest: urlRequest)
    }

    /// Starts (or, for a retry, restarts) the transfer of `request`.
    ///
    /// Without progress handlers URLSession collects the body and hands it
    /// over in one completion callback; with them, every chunk comes through
    /// the delegate. (On Linux each delegate callback is an `OperationQueue`
    /// hop: collecting saves two per request.)
    func start(_ request: DataRequest) {
        guard request.outcome.isPending, let urlRequest = request.urlRequest else { return }
        let streaming = request.streamsBody
        let task: URLSessionDataTask
        if streaming {
            task = urlSession.dataTask(with: urlRequest)
        } else {
            // The completion handler runs on the delegate queue, like the
            // delegate's own completion callback.
            let delegate = self.delegate
            task = urlSession.dataTask(with: urlRequest) { data, response, error in
                delegate.didCollect(for: request, data: data, response: response, error: error)
            }
        }
        delegate.register(request, for: task, streaming: streaming)
        request.attach(task)
        task.resume()
    }

    /// Sends a request nobody will read the answer of (an unstarted
    /// ``DataRequest`` released without handlers).
    func startUnobserved(_ urlRequest: URLRequest) {
        urlSession.dataTask(with: urlRequest) { _, _, _ in }.resume()
    }

    /// Cancels a running task safely (see ``SessionDelegate/cancel(_:on:)``).
    func cancel(_ task: URLSessionTask) {
        delegate.cancel(task, on: urlSession.delegateQueue)
    }

    /// The longest timeout passed on (a year); swift-corelibs-foundation
    /// traps converting a much larger one to milliseconds.
    static let maximumTimeout: Double = 365 * 86_400

    /// The timeout as URLSession will apply it: a zero, negative or NaN one
    /// becomes ``defaultTimeout``, an infinite or huge one ``maximumTimeout``.
    ///
    /// URLSession enforces `URLRequest.timeoutInterval` as an idle timeout.
    /// swift-corelibs-foundation counts it in whole seconds, truncating: 1.5 s
    /// waits 1 s, anything under a second times out at once, and an infinite
    /// one traps (checked on Swift 6.3.1). There a fractional timeout is
    /// rounded up instead.
    static func transportTimeout(_ timeout: Double) -> Double {
        guard !timeout.isNaN, timeout > 0 else { return defaultTimeout }
        #if canImport(FoundationNetworking)
        return min(maximumTimeout, max(1, timeout.rounded(.up)))
        #else
        return min(maximumTimeout, timeout)
        #endif
    }
}

/// Creates a request on ``Session/default``; the first handler starts it.
///
/// ```swift
/// request("https://b.hatena.ne.jp/entry/json/?url=…")
///     .validate()
///     .responseDecodable(of: Entry.self) { response in … }
/// ```
///
/// - Parameters:
///   - url: The URL, as a `String`, `URL` or `URLComponents`.
///   - method: The HTTP method.
///   - headers: Header fields to send.
///   - body: The request body.
///   - timeout: Seconds without any data before the request fails with a
///     time-out (default 60; on Linux, rounded up to whole seconds).
/// - Returns: The request, ready for handlers; the first one starts it.
public func request(
    _ url: any URLConvertible,
    method: HTTPMethod = .get,
    headers: HTTPHeaders = [:],
    body: Data? = nil,
    timeout: Double? = nil
) -> DataRequest {
    Session.default.request(url, method: method, headers: headers, body: body, timeout: timeout)
}
