import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Creates and runs requests over an ``HTTPTransport``, and decides
/// everything about them that is not moving bytes: redirects, credentials,
/// cookies, retries, deadlines and outcomes.
///
/// ```swift
/// let session = Session(retryPolicy: RetryPolicy(retryLimit: 2))
/// session.request("https://example.com/items.json")
///     .validate()
///     .responseJSON { response in print(response.result) }
/// ```
///
/// `Session(configuration:)` runs requests on ``URLSessionTransport``;
/// `Session(transport:)` on any other, such as the `DeferredQueueAsyncHTTPClient`
/// package's `AsyncHTTPClientTransport`. Requests behave the same on both.
///
/// A running request keeps its session alive, so fire-and-forget requests on
/// a temporary session complete instead of being cancelled; the transport is
/// shut down when the last reference to the session (including those of its
/// running requests) goes.
///
/// ## Threading
///
/// Every transport event arrives on the transport's serial callback queue,
/// where redirectors, adapters and retriers run: keep them short, and never
/// make them wait for another request of the same session, which could then
/// never complete.
///
/// Each request's own serial handler queue runs its validators and
/// serializers, in the order they were chained. By default those queues
/// target a global concurrent queue, so different requests validate and
/// decode in parallel, on every core; pass a serial `serializationQueue` to
/// funnel every request's serialization through it, one at a time (Alamofire's
/// default). Completion handlers then run on the `queue:` they name.
public final class Session: Sendable {
    /// The session used by the free functions (``request(_:method:parameters:encoding:headers:body:interceptor:shouldAutomaticallyResume:timeout:requestModifier:)``…).
    public static let `default` = Session()

    /// The idle timeout applied when none is given: a request that receives
    /// nothing for this long fails with `URLError.timedOut`.
    public static let defaultTimeout: Double = 60

    /// The default ``maximumStreamedBodySize``: 4 GiB, so that a download or
    /// stream that never ends (or a compression bomb) cannot fill the disk
    /// or run forever, while real files fit.
    public static let defaultMaximumStreamedBodySize = 4 << 30

    /// A redirect chain longer than this fails with `URLError.httpTooManyRedirects`.
    public static let redirectLimit = 16

    /// What moves the bytes.
    public let transport: any HTTPTransport
    /// Adapts and retries every request of the session (before the request's own).
    public let interceptor: (any RequestInterceptor)?
    /// Whether requests start with their first handler (Alamofire's
    /// default); when `false`, each waits for ``Request/resume()``. A
    /// factory's `shouldAutomaticallyResume:` decides for one request.
    public let startRequestsImmediately: Bool
    /// Which hosts' TLS credentials are evaluated, and how (`nil`: the
    /// transport's default checks for every host).
    public let serverTrustManager: ServerTrustManager?
    /// Decides redirects for requests that do not set their own.
    public let redirectHandler: Redirector
    /// Consulted after the retriers, before a failed attempt is delivered.
    public let retryPolicy: RetryPolicy?
    /// The largest response body, in decoded bytes, held in memory; a larger
    /// one fails with ``HTTPError/responseTooLarge(limit:)``.
    public let maximumResponseBodySize: Int
    /// The most decoded bytes a download writes to its file, or a stream
    /// hands over in total; past it the transfer stops at once with
    /// ``HTTPError/responseTooLarge(limit:)`` (and a download's partial file
    /// is removed). Alamofire has no such limit: see MIGRATING.md.
    public let maximumStreamedBodySize: Int
    /// The deadline for a whole request, retries and redirects included, in
    /// seconds; `nil` for none.
    public let resourceTimeout: Double?
    /// Where every attempt's adapters run (Alamofire's `requestQueue`);
    /// `nil`: the transport's callback queue. Requests are built on the
    /// caller's thread either way.
    public let requestQueue: DispatchQueue?
    /// What every request's handler queue targets: `nil` (the default), a
    /// global concurrent queue, so requests serialize in parallel; a serial
    /// queue runs every request's validators and serializers one at a time.
    /// One request's handlers run in the order they were chained either way.
    public let serializationQueue: DispatchQueue?

    let eventMonitor: CompositeEventMonitor?
    let cookieStore: (any CookieStore)?
    /// Header fields added to every attempt that does not set them.
    let defaultHeaders: [(name: String, lowercasedName: String, value: String)]
    /// `defaultHeaders` as the header fields of a request that sets none:
    /// shared, so such a request's fields are neither hashed nor copied.
    let defaultHeaderFields: [String: String]
    /// The URLSession configuration's `httpAdditionalHeaders` (the transport sends them).
    let configuredHeaders: [(name: String, value: String)]
    /// Why `configuredHeaders` may not be sent, if they may not: every request fails with it.
    let configuredHeadersError: HTTPError?
    let registry: RequestRegistry

    /// Creates a session on ``URLSessionTransport``.
    ///
    /// - Parameters:
    ///   - configuration: The `URLSession` configuration: headers, timeouts,
    ///     connection limits, proxies, TLS. Its `timeoutIntervalForResource`
    ///     becomes the session's whole-request deadline; its cookie storage is
    ///     used by the session itself — except `HTTPCookieStorage.shared` on
    ///     Linux, which is written to a file other programs read, replaced by
    ///     a store in memory (see ``URLSessionTransport`` for what else changes).
    ///     The default, ``URLSessionTransport/defaultConfiguration``, caches no
    ///     responses: unlike Alamofire's, it writes no disk cache under `$HOME`.
    ///   - rootQueue: The queue the transport's serial callback queue
    ///     targets, where every transport event, redirector, retrier and
    ///     (without a `requestQueue`) adapter runs (default: its own).
    ///   - startRequestsImmediately: Whether a request starts with its first
    ///     handler (the default); `false`: only with ``Request/resume()``.
    ///   - requestQueue: Where every attempt's adapters run; `nil` (the
    ///     default): the transport's callback queue.
    ///   - serializationQueue: What every request's validators and
    ///     serializers run on: `nil` (the default), each request on its own
    ///     serial queue, in parallel with the others; a serial queue, one
    ///     request at a time (Alamofire's default; see MIGRATING.md).
    ///   - interceptor: Adapts and retries every request.
    ///   - serverTrustManager: Evaluates the TLS credentials of the hosts it
    ///     names (``ServerTrustManager``); `nil`: the transport's default checks.
    ///   - redirectHandler: Decides redirects (default: follow).
    ///   - eventMonitors: Observe every request.
    ///   - retryPolicy: When to retry failed attempts; `nil` never retries.
    ///   - maximumResponseBodySize: The largest body held in memory (256 MiB).
    ///   - maximumStreamedBodySize: The largest body a download writes or a
    ///     stream hands over (4 GiB; `Int.max` for none).
    public convenience init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration,
        rootQueue: DispatchQueue? = nil,
        startRequestsImmediately: Bool = true,
        requestQueue: DispatchQueue? = nil,
        serializationQueue: DispatchQueue? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        serverTrustManager: ServerTrustManager? = nil,
        redirectHandler: Redirector = .follow,
        eventMonitors: [any EventMonitor] = [],
        retryPolicy: RetryPolicy? = nil,
        maximumResponseBodySize: Int = 256 << 20,
        maximumStreamedBodySize: Int = Session.defaultMaximumStreamedBodySize
    ) {
        let transport = URLSessionTransport(configuration: configuration, rootQueue: rootQueue)
        self.init(
            transport: transport, startRequestsImmediately: startRequestsImmediately, requestQueue: requestQueue,
            serializationQueue: serializationQueue, interceptor: interceptor, serverTrustManager: serverTrustManager, redirectHandler: redirectHandler,
            eventMonitors: eventMonitors, retryPolicy: retryPolicy, maximumResponseBodySize: maximumResponseBodySize,
            maximumStreamedBodySize: maximumStreamedBodySize, resourceTimeout: configuration.timeoutIntervalForResource,
            cookieStore: Self.cookieStore(for: configuration),
            configuredHeaders: (configuration.httpAdditionalHeaders ?? [:]).map { (name: "\($0.key)", value: "\($0.value)") }
        )
    }

    /// Creates a session on any transport.
    ///
    /// - Parameters:
    ///   - transport: What moves the bytes.
    ///   - startRequestsImmediately: Whether a request starts with its first
    ///     handler (the default); `false`: only with ``Request/resume()``.
    ///   - requestQueue: Where every attempt's adapters run; `nil` (the
    ///     default): the transport's callback queue.
    ///   - serializationQueue: What every request's validators and
    ///     serializers run on: `nil` (the default), each request on its own
    ///     serial queue, in parallel with the others; a serial queue, one
    ///     request at a time (Alamofire's default; see MIGRATING.md).
    ///   - interceptor: Adapts and retries every request.
    ///   - serverTrustManager: Evaluates the TLS credentials of the hosts it
    ///     names (``ServerTrustManager``); `nil`: the transport's default checks.
    ///   - redirectHandler: Decides redirects (default: follow).
    ///   - eventMonitors: Observe every request.
    ///   - retryPolicy: When to retry failed attempts; `nil` never retries.
    ///   - maximumResponseBodySize: The largest body held in memory (256 MiB).
    ///   - maximumStreamedBodySize: The largest body a download writes or a
    ///     stream hands over (4 GiB; `Int.max` for none).
    ///   - resourceTimeout: The deadline for a whole request, in seconds
    ///     (default: 7 days, as URLSession's); `nil` for none.
    public convenience init(
        transport: any HTTPTransport,
        startRequestsImmediately: Bool = true,
        requestQueue: DispatchQueue? = nil,
        serializationQueue: DispatchQueue? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        serverTrustManager: ServerTrustManager? = nil,
        redirectHandler: Redirector = .follow,
        eventMonitors: [any EventMonitor] = [],
        retryPolicy: RetryPolicy? = nil,
        maximumResponseBodySize: Int = 256 << 20,
        maximumStreamedBodySize: Int = Session.defaultMaximumStreamedBodySize,
        resourceTimeout: Double? = 7 * 86_400
    ) {
        self.init(
            transport: transport, startRequestsImmediately: startRequestsImmediately, requestQueue: requestQueue,
            serializationQueue: serializationQueue, interceptor: interceptor, serverTrustManager: serverTrustManager, redirectHandler: redirectHandler,
            eventMonitors: eventMonitors, retryPolicy: retryPolicy, maximumResponseBodySize: maximumResponseBodySize,
            maximumStreamedBodySize: maximumStreamedBodySize, resourceTimeout: resourceTimeout, cookieStore: InMemoryCookieStore(), configuredHeaders: []
        )
    }

    private init(
        transport: any HTTPTransport, startRequestsImmediately: Bool, requestQueue: DispatchQueue?, serializationQueue: DispatchQueue?,
        interceptor: (any RequestInterceptor)?,
        serverTrustManager: ServerTrustManager?,
        redirectHandler: Redirector,
        eventMonitors: [any EventMonitor], retryPolicy: RetryPolicy?, maximumResponseBodySize: Int,
        maximumStreamedBodySize: Int, resourceTimeout: Double?, cookieStore: (any CookieStore)?, configuredHeaders: [(name: String, value: String)]
    ) {
        self.transport = transport
        self.startRequestsImmediately = startRequestsImmediately
        self.requestQueue = requestQueue
        self.serializationQueue = serializationQueue
        self.interceptor = interceptor
        self.serverTrustManager = serverTrustManager
        self.redirectHandler = redirectHandler
        self.eventMonitor = CompositeEventMonitor(eventMonitors)
        self.retryPolicy = retryPolicy
        self.maximumResponseBodySize = max(0, maximumResponseBodySize)
        self.maximumStreamedBodySize = max(0, maximumStreamedBodySize)
        self.resourceTimeout = resourceTimeout.flatMap { $0.isNaN || $0 <= 0 || $0 >= 1e9 ? nil : $0 }
        self.cookieStore = cookieStore
        self.registry = RequestRegistry(resourceTimeout: self.resourceTimeout, queue: transport.callbackQueue)
        self.configuredHeaders = configuredHeaders
        self.configuredHeadersError = RequestSyntax.violation(in: configuredHeaders)
        let configured = Set(configuredHeaders.map { $0.name.lowercased() })
        self.defaultHeaders = DefaultHeaders.make(acceptEncoding: transport.acceptEncoding)
            .filter { !configured.contains($0.name.lowercased()) }
            .map { (name: $0.name, lowercasedName: $0.name.lowercased(), value: $0.value) }
        self.defaultHeaderFields = Dictionary(defaultHeaders.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    deinit {
        // No request of this session is running: each one keeps it alive.
        transport.shutdown()
    }

    /// Cancels every running request of this session, then calls
    /// `completion` on `queue` (Alamofire's signature): by then every one of
    /// them is cancelled, and its handlers are on their way with
    /// ``HTTPError/cancelled``.
    ///
    /// - Parameters:
    ///   - queue: Where `completion` runs (default `.main`).
    ///   - completion: Called once every request was cancelled.
    public func cancelAllRequests(completingOnQueue queue: DispatchQueue = .main, completion: (@Sendable () -> Void)? = nil) {
        for request in registry.all { request.cancel() }
        if let completion { queue.async(execute: completion) }
    }

    /// The cookie store for a URLSession configuration: none when cookies
    /// are off, memory instead of the file-backed shared store on Linux.
    static func cookieStore(for configuration: URLSessionConfiguration) -> (any CookieStore)? {
        guard configuration.httpShouldSetCookies, configuration.httpCookieAcceptPolicy != .never,
              let storage = configuration.httpCookieStorage
        else { return nil }
        #if canImport(FoundationNetworking)
        if storage === HTTPCookieStorage.shared { return InMemoryCookieStore() }
        #endif
        return SystemCookieStore(storage: storage)
    }

    // MARK: - Attempts

    /// The adapters of `request`: the session's, then the request's.
    func adapters(for request: Request) -> [any RequestAdapter] {
        [interceptor, request.interceptor].compactMap { $0 }
    }

    /// The retriers of `request`: the session's, then the request's (Alamofire's order).
    func retriers(for request: Request) -> [any RequestRetrier] {
        [interceptor, request.interceptor].compactMap { $0 }
    }

    /// `request` with the session's defaults: default headers and cookies,
    /// unless the request sets them. `timeoutIsAssigned`: whether its
    /// `timeoutInterval` is known to have been assigned (cheaper to copy).
    ///
    /// - Throws: ``HTTPError/urlRequestValidationFailed(reason:)`` when the
    ///   method or a header field of the request as it would be sent (the
    ///   configuration's `httpAdditionalHeaders` included) breaks RFC 9110's
    ///   syntax; values' leading and trailing spaces and tabs are trimmed.
    func prepare(_ request: URLRequest, timeoutIsAssigned: Bool = false) throws(HTTPError) -> URLRequest {
        if let configuredHeadersError { throw configuredHeadersError }
        // One assignment of the whole header dictionary: each
        // `setValue(_:forHTTPHeaderField:)` compares every field's name.
        var fields = request.allHTTPHeaderFields ?? [:]
        var present: Set<String> = []
        if fields.isEmpty {
            fields = defaultHeaderFields
        } else {
            present = Set(fields.keys.map { $0.lowercased() })
            fields.reserveCapacity(fields.count + defaultHeaders.count + 1)
            for header in defaultHeaders where !present.contains(header.lowercasedName) {
                fields[header.name] = header.value
            }
        }
        if let cookieStore, request.httpShouldHandleCookies, !present.contains("cookie"),
           let url = request.url, let cookies = cookieStore.cookieHeader(for: url) {
            fields["Cookie"] = cookies
        }
        try RequestSyntax.validate(method: request.httpMethod ?? "GET", fields: &fields)
        var prepared: URLRequest
        if timeoutIsAssigned {
            prepared = request.duplicatedWithAssignedTimeout(headerFields: fields)
        } else {
            prepared = request
            prepared.allHTTPHeaderFields = fields
        }
        // The session handles cookies; the transport must not.
        prepared.httpShouldHandleCookies = false
        return prepared
    }

    /// Stores the cookies `response` sets, if the session keeps cookies.
    func storeCookies(from response: HTTPURLResponse) {
        cookieStore?.storeCookies(from: response)
    }

    /// The number of requests running now (for leak checks).
    var runningRequestCount: Int { registry.count }
}
