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
/// running requests) goes. A request suspended while running does not keep
/// it: when the session goes, it fails such a request with
/// ``HTTPError/abandoned``.
///
/// ## Threading
///
/// Every transport event arrives on the transport's serial callback queue,
/// where redirectors, adapters and retriers run: keep them short, and never
/// make them wait for another request of the same session, which could then
/// never complete.
///
/// One shortcut: a transport may offer a collected response's completion
/// from its own thread (`AsyncHTTPClientTransport` does, from its event
/// loop), and the session finishes the request there, one thread hop
/// sooner, when that runs none of your code: no event monitor, a `2xx`
/// status (no redirector, challenge or retrier to ask), no cookie to store,
/// only the library's checks of the head as validators (and none when a
/// retrier could be asked about their verdict), and the request neither
/// suspended nor waiting on an `onHTTPResponse` handler. Anything else goes
/// through the callback queue as above. Either way the request's own handler
/// queue runs its validators, serializers and handlers.
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

    /// What the session's requests run on (everything above but the
    /// `Session` object, which finished requests hold only weakly).
    let core: SessionCore

    /// What moves the bytes.
    public var transport: any HTTPTransport { core.transport }
    /// The serial queue every transport event, redirector, retrier and
    /// (without a ``requestQueue``) adapter runs on (Alamofire's
    /// `rootQueue`): the transport's callback queue, which targets the
    /// `rootQueue:` given to ``init(configuration:rootQueue:startRequestsImmediately:requestSetup:requestQueue:serializationQueue:interceptor:serverTrustManager:redirectHandler:eventMonitors:retryPolicy:maximumResponseBodySize:maximumStreamedBodySize:)``.
    public var rootQueue: DispatchQueue { core.transport.callbackQueue }

    /// When a request is set up (Alamofire's `RequestSetup`).
    ///
    /// A request is built as it is made (its `URLRequest`, its
    /// ``Request/cURLDescription()``), and set up — adapted, reported to
    /// monitors, sent — when it starts, whichever value is chosen: that is
    /// Alamofire's `.lazy`, its default. `.eager` is accepted so that code
    /// written for Alamofire compiles; see MIGRATING.md.
    public enum RequestSetup: Sendable {
        /// Set up when the request starts (the default).
        case lazy
        /// In Alamofire, set up as the request is made; here as `.lazy`.
        case eager
    }

    /// The `requestSetup:` the session was made with (see ``RequestSetup``).
    public let requestSetup: RequestSetup
    /// Adapts and retries every request of the session (before the request's own).
    public var interceptor: (any RequestInterceptor)? { core.interceptor }
    /// Whether requests start with their first handler (Alamofire's
    /// default); when `false`, each waits for ``Request/resume()``. A
    /// factory's `shouldAutomaticallyResume:` decides for one request.
    public var startRequestsImmediately: Bool { core.startRequestsImmediately }
    /// Which hosts' TLS credentials are evaluated, and how (`nil`: the
    /// transport's default checks for every host).
    public var serverTrustManager: ServerTrustManager? { core.serverTrustManager }
    /// Decides redirects for requests that do not set their own.
    public var redirectHandler: Redirector { core.redirectHandler }
    /// Consulted after the retriers, before a failed attempt is delivered.
    public var retryPolicy: RetryPolicy? { core.retryPolicy }
    /// The largest response body, in decoded bytes, held in memory; a larger
    /// one fails with ``HTTPError/responseTooLarge(limit:)``.
    public var maximumResponseBodySize: Int { core.maximumResponseBodySize }
    /// The most decoded bytes a download writes to its file, or a stream
    /// hands over in total; past it the transfer stops at once with
    /// ``HTTPError/responseTooLarge(limit:)`` (and a download's partial file
    /// is removed). It also bounds the copy an `InputStream` upload makes
    /// before sending (``HTTPError/createUploadableFailed(error:)``).
    /// Alamofire has no such limit: see MIGRATING.md.
    public var maximumStreamedBodySize: Int { core.maximumStreamedBodySize }
    /// The deadline for a whole request, retries and redirects included, in
    /// seconds; `nil` for none.
    public var resourceTimeout: Double? { core.resourceTimeout }
    /// Where every attempt's adapters run (Alamofire's `requestQueue`);
    /// `nil`: the transport's callback queue. Requests are built on the
    /// caller's thread either way.
    public var requestQueue: DispatchQueue? { core.requestQueue }
    /// What every request's handler queue targets: `nil` (the default), a
    /// global concurrent queue, so requests serialize in parallel; a serial
    /// queue runs every request's validators and serializers one at a time.
    /// One request's handlers run in the order they were chained either way.
    public var serializationQueue: DispatchQueue? { core.serializationQueue }

    /// The monitors given to the session, as one monitor (Alamofire's
    /// `eventMonitor`): pass it to another session to have it heard there too.
    /// Without monitors, it has none (``CompositeEventMonitor/monitors`` is empty).
    public var eventMonitor: CompositeEventMonitor { core.eventMonitor ?? .empty }
    var cookieStore: (any CookieStore)? { core.cookieStore }
    /// Header fields added to every attempt that does not set them.
    var defaultHeaders: [(name: String, lowercasedName: String, value: String)] { core.defaultHeaders }
    /// `defaultHeaders` as the header fields of a request that sets none:
    /// shared, so such a request's fields are neither hashed nor copied.
    var defaultHeaderFields: [String: String] { core.defaultHeaderFields }
    /// The URLSession configuration's `httpAdditionalHeaders` (the transport sends them).
    var configuredHeaders: [(name: String, value: String)] { core.configuredHeaders }
    /// Why `configuredHeaders` may not be sent, if they may not: every request fails with it.
    var configuredHeadersError: HTTPError? { core.configuredHeadersError }
    var registry: RequestRegistry { core.registry }

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
    ///   - requestSetup: When requests are set up: when they start, either
    ///     way (see ``RequestSetup``).
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
    ///   - maximumStreamedBodySize: The largest body a download writes, a
    ///     stream hands over or an `InputStream` upload sends (4 GiB; `Int.max` for none).
    public convenience init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration,
        rootQueue: DispatchQueue? = nil,
        startRequestsImmediately: Bool = true,
        requestSetup: RequestSetup = .lazy,
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
            transport: transport, startRequestsImmediately: startRequestsImmediately, requestSetup: requestSetup, requestQueue: requestQueue,
            serializationQueue: serializationQueue, interceptor: interceptor, serverTrustManager: serverTrustManager, redirectHandler: redirectHandler,
            eventMonitors: eventMonitors, retryPolicy: retryPolicy, maximumResponseBodySize: maximumResponseBodySize,
            maximumStreamedBodySize: maximumStreamedBodySize, resourceTimeout: configuration.timeoutIntervalForResource,
            cookieStore: Self.cookieStore(for: configuration),
            configuredHeaders: configuration.additionalHeaderFields
        )
    }

    /// Creates a session on any transport.
    ///
    /// - Parameters:
    ///   - transport: What moves the bytes.
    ///   - startRequestsImmediately: Whether a request starts with its first
    ///     handler (the default); `false`: only with ``Request/resume()``.
    ///   - requestSetup: When requests are set up: when they start, either
    ///     way (see ``RequestSetup``).
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
    ///   - maximumStreamedBodySize: The largest body a download writes, a
    ///     stream hands over or an `InputStream` upload sends (4 GiB; `Int.max` for none).
    ///   - resourceTimeout: The deadline for a whole request, in seconds
    ///     (default: 7 days, as URLSession's); `nil` for none.
    public convenience init(
        transport: any HTTPTransport,
        startRequestsImmediately: Bool = true,
        requestSetup: RequestSetup = .lazy,
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
            transport: transport, startRequestsImmediately: startRequestsImmediately, requestSetup: requestSetup, requestQueue: requestQueue,
            serializationQueue: serializationQueue, interceptor: interceptor, serverTrustManager: serverTrustManager, redirectHandler: redirectHandler,
            eventMonitors: eventMonitors, retryPolicy: retryPolicy, maximumResponseBodySize: maximumResponseBodySize,
            maximumStreamedBodySize: maximumStreamedBodySize, resourceTimeout: resourceTimeout, cookieStore: InMemoryCookieStore(), configuredHeaders: []
        )
    }

    init(
        transport: any HTTPTransport, startRequestsImmediately: Bool, requestSetup: RequestSetup, requestQueue: DispatchQueue?,
        serializationQueue: DispatchQueue?,
        interceptor: (any RequestInterceptor)?,
        serverTrustManager: ServerTrustManager?,
        redirectHandler: Redirector,
        eventMonitors: [any EventMonitor], retryPolicy: RetryPolicy?, maximumResponseBodySize: Int,
        maximumStreamedBodySize: Int, resourceTimeout: Double?, cookieStore: (any CookieStore)?, configuredHeaders: [(name: String, value: String)]
    ) {
        self.requestSetup = requestSetup
        core = SessionCore(
            transport: transport, startRequestsImmediately: startRequestsImmediately, requestQueue: requestQueue,
            serializationQueue: serializationQueue, interceptor: interceptor, serverTrustManager: serverTrustManager,
            redirectHandler: redirectHandler, eventMonitors: eventMonitors, retryPolicy: retryPolicy,
            maximumResponseBodySize: maximumResponseBodySize, maximumStreamedBodySize: maximumStreamedBodySize,
            resourceTimeout: resourceTimeout, cookieStore: cookieStore, configuredHeaders: configuredHeaders
        )
        TransportUsers.add(transport)
    }

    deinit {
        // No request of this session is running but those suspended while
        // running (the others keep it alive): nothing can resume them now,
        // so they fail, before their transport goes down.
        for request in core.registry.all { request.finish(failingWith: .abandoned) }
        // A transport other sessions use stays up for them.
        if TransportUsers.remove(core.transport) { core.transport.shutdown() }
        core.eventMonitor?.sessionDidBecomeInvalid(withError: nil)
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

    /// The number of requests running now (for leak checks).
    var runningRequestCount: Int { core.runningRequestCount }
}
