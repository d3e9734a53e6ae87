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
/// A request starts immediately. While its task runs, the session's
/// delegate keeps the request alive and the request keeps the session alive,
/// so fire-and-forget requests on a temporary session complete instead of
/// being cancelled. A custom session invalidates its `URLSession` when the
/// last reference to it (including those of its running requests) goes.
///
/// All `URLSession` delegate callbacks of one session arrive on one serial
/// operation queue; serialization runs on each request's own queue.
public final class Session: Sendable {
    /// The session used by the free function ``request(_:method:headers:body:timeout:)``.
    public static let `default` = Session()

    /// The request timeout applied when none is given: a request that
    /// receives nothing for this long fails with `URLError.timedOut`.
    public static let defaultTimeout: Double = 60

    /// The policy consulted before a failed attempt is delivered.
    public let retryPolicy: RetryPolicy?

    let urlSession: URLSession
    let delegate: SessionDelegate

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - configuration: The `URLSession` configuration (headers, cookies,
    ///     caching, connection limits).
    ///   - retryPolicy: When to retry failed attempts; `nil` never retries.
    public init(configuration: URLSessionConfiguration = .default, retryPolicy: RetryPolicy? = nil) {
        let delegate = SessionDelegate()
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "DeferredQueue.Session.delegate"
        self.delegate = delegate
        self.retryPolicy = retryPolicy
        self.urlSession = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    deinit {
        // No request of this session is running: each one keeps it alive.
        urlSession.finishTasksAndInvalidate()
    }

    /// Creates and starts a request.
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
    ///     time-out; ``defaultTimeout`` when `nil`.
    /// - Returns: The running request, ready for handlers.
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
        urlRequest.timeoutInterval = Self.sanitizedTimeout(timeout)
        return request(urlRequest)
    }

    /// Creates and starts a request from a prepared `URLRequest`.
    ///
    /// A request whose URL is missing or not `http`/`https` with a host gets
    /// ``HTTPError/invalidURL(_:)``.
    public func request(_ urlRequest: URLRequest) -> DataRequest {
        guard let url = urlRequest.url, (try? url.asURL()) != nil else {
            return DataRequest(session: self, failedWith: .invalidURL(urlRequest.url?.absoluteString ?? "(no URL)"))
        }
        let request = DataRequest(session: self, urlRequest: urlRequest)
        start(request)
        return request
    }

    /// Starts (or, for a retry, restarts) the transfer of `request`.
    func start(_ request: DataRequest) {
        guard request.outcome.isPending, let urlRequest = request.urlRequest else { return }
        let task = urlSession.dataTask(with: urlRequest)
        delegate.register(request, for: task)
        request.attach(task)
        task.resume()
    }

    /// Cancels a running task safely (see ``SessionDelegate/cancel(_:on:)``).
    func cancel(_ task: URLSessionTask) {
        delegate.cancel(task, on: urlSession.delegateQueue)
    }

    private static func sanitizedTimeout(_ timeout: Double?) -> Double {
        guard let timeout, timeout.isFinite, timeout > 0 else { return defaultTimeout }
        return timeout
    }
}

/// Creates and starts a request on ``Session/default``.
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
///     time-out (default 60).
/// - Returns: The running request, ready for handlers.
public func request(
    _ url: any URLConvertible,
    method: HTTPMethod = .get,
    headers: HTTPHeaders = [:],
    body: Data? = nil,
    timeout: Double? = nil
) -> DataRequest {
    Session.default.request(url, method: method, headers: headers, body: body, timeout: timeout)
}
