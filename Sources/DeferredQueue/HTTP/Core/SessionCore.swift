import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a ``Session``'s requests run on: its transport, its settings and the
/// state its requests share (the registry, the cookie store) — everything
/// but the `Session` object itself.
///
/// A request holds its session's core for its whole life, and the `Session`
/// strongly only while it runs (a finished request must not keep its session
/// alive, so it then holds it weakly). Once anything holds an object weakly,
/// Swift counts that object's references through a side table, which makes
/// every retain and release of it slower: requests therefore reach what they
/// need through the core, and touch the `Session` object only where the API
/// hands it out (adapters, retriers, `Request.session`).
final class SessionCore: Sendable {
    let transport: any HTTPTransport
    let interceptor: (any RequestInterceptor)?
    let startRequestsImmediately: Bool
    let serverTrustManager: ServerTrustManager?
    let redirectHandler: Redirector
    let retryPolicy: RetryPolicy?
    /// Whether `interceptor` is set, and whether the session itself may
    /// retry a failure (an interceptor or a retry policy): read on every
    /// request, so tested once (testing an optional existential or struct for
    /// `nil` copies it).
    let hasInterceptor: Bool, retriesFailures: Bool
    let maximumResponseBodySize: Int
    let maximumStreamedBodySize: Int
    let resourceTimeout: Double?
    let requestQueue: DispatchQueue?
    let serializationQueue: DispatchQueue?
    let eventMonitor: CompositeEventMonitor?
    /// The transport's serial callback queue (read without a protocol call).
    let callbackQueue: DispatchQueue
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
    /// The origin credentials of the transport's configuration (`Authorization`,
    /// `Cookie`), which URLSession would add to every
    /// task, a redirect hop to another origin's too: the transport leaves them
    /// out, and ``prepare(_:timeoutIsAssigned:crossOrigin:)`` adds them to the
    /// attempts at the request's own origin.
    let configuredCredentials: [(name: String, lowercasedName: String, value: String)]
    /// The session's running requests.
    let registry: RequestRegistry

    init(
        transport: any HTTPTransport, startRequestsImmediately: Bool, requestQueue: DispatchQueue?, serializationQueue: DispatchQueue?,
        interceptor: (any RequestInterceptor)?, serverTrustManager: ServerTrustManager?, redirectHandler: Redirector,
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
        self.eventMonitor = CompositeEventMonitor.combining(eventMonitors)
        self.callbackQueue = transport.callbackQueue
        self.retryPolicy = retryPolicy
        self.hasInterceptor = interceptor != nil
        self.retriesFailures = interceptor != nil || retryPolicy != nil
        self.maximumResponseBodySize = max(0, maximumResponseBodySize)
        self.maximumStreamedBodySize = max(0, maximumStreamedBodySize)
        self.resourceTimeout = resourceTimeout.flatMap { $0.isNaN || $0 <= 0 || $0 >= 1e9 ? nil : $0 }
        self.cookieStore = cookieStore
        self.registry = RequestRegistry(resourceTimeout: self.resourceTimeout, queue: transport.callbackQueue)
        self.configuredHeaders = configuredHeaders
        self.configuredHeadersError = RequestSyntax.configurationViolation(in: configuredHeaders)
        self.configuredCredentials = ((transport as? URLSessionTransport)?.configuredCredentials ?? []).map {
            (name: $0.name, lowercasedName: $0.name.lowercased(), value: $0.value)
        }
        let configured = Set(configuredHeaders.map { $0.name.lowercased() })
        // Checked here once, not on every attempt (`prepare` checks the
        // caller's fields only); one the syntax refuses (a process name with
        // a control character in the User-Agent) is left out.
        self.defaultHeaders = DefaultHeaders.make(acceptEncoding: transport.acceptEncoding)
            .filter { !configured.contains($0.name.lowercased()) && RequestSyntax.isToken($0.name) }
            .compactMap { header in
                let value: String
                switch RequestSyntax.check(value: header.value) {
                case .valid: value = header.value
                case .trimmed(let trimmed): value = trimmed
                case .invalid: return nil
                }
                return (name: header.name, lowercasedName: header.name.lowercased(), value: value)
            }
        self.defaultHeaderFields = Dictionary(defaultHeaders.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The adapters of `request`: the session's, then the request's.
    func adapters(for request: Request) -> [any RequestAdapter] {
        ([interceptor].compactMap { $0 } + request.requestInterceptors).map { $0 as any RequestAdapter }
    }

    /// The retriers of `request`: the session's, then the request's (Alamofire's order).
    func retriers(for request: Request) -> [any RequestRetrier] {
        ([interceptor].compactMap { $0 } + request.requestInterceptors).map { $0 as any RequestRetrier }
    }

    /// `request` with the session's defaults: default headers, cookies and
    /// (unless `crossOrigin`: a redirect hop away from the request's origin)
    /// the configuration's credentials, unless the request sets them.
    /// `timeoutIsAssigned`: whether its `timeoutInterval` is known to have
    /// been assigned (cheaper to copy).
    ///
    /// - Returns: The request, and whether the caller set `Content-Length`
    ///   or `Transfer-Encoding` (checked against the body by ``RequestFraming``).
    /// - Throws: ``HTTPError/urlRequestValidationFailed(reason:)`` when the
    ///   method or a header field of the request as it would be sent (the
    ///   configuration's `httpAdditionalHeaders` included) breaks RFC 9110's
    ///   syntax; values' leading and trailing spaces and tabs are trimmed.
    ///   ``HTTPError/invalidURL(_:)`` when a modifier or an adapter left it no
    ///   URL, or one that is not `http(s)` with a host.
    func prepare(
        _ request: URLRequest, timeoutIsAssigned: Bool = false, crossOrigin: Bool = false
    ) throws(HTTPError) -> (request: URLRequest, setsFraming: Bool) {
        if let configuredHeadersError { throw configuredHeadersError }
        // Checked before anything copies it: Foundation on Linux traps copying a request without one.
        guard let url = request.url else { throw .invalidURL("(no URL)") }
        // Again here, after adapters and modifiers, so that no transport is handed another scheme.
        let form = url.sendableForm
        if case .refused = form { throw .invalidURL(url.absoluteString) }
        // One assignment of the whole header dictionary: each
        // `setValue(_:forHTTPHeaderField:)` compares every field's name.
        var fields = request.allHTTPHeaderFields ?? [:]
        // The caller's fields, before the defaults (checked once) join them.
        try RequestSyntax.validate(method: request.httpMethod ?? "GET", fields: &fields)
        var present: Set<String> = []
        var setsFraming = false
        if fields.isEmpty {
            fields = defaultHeaderFields
        } else {
            present = Set(fields.keys.map { $0.lowercased() })
            setsFraming = present.contains("content-length") || present.contains("transfer-encoding")
            fields.reserveCapacity(fields.count + defaultHeaders.count + 1)
            for header in defaultHeaders where !present.contains(header.lowercasedName) {
                fields[header.name] = header.value
            }
        }
        if let cookieStore, request.httpShouldHandleCookies, !present.contains("cookie"),
           let url = request.url, let cookies = cookieStore.cookieHeader(for: url) {
            if case .invalid = RequestSyntax.check(value: cookies) {
                throw .urlRequestValidationFailed(reason: .invalidHeaderValue(name: "Cookie"))
            }
            fields["Cookie"] = cookies
            present.insert("cookie")
        }
        if !crossOrigin, !configuredCredentials.isEmpty {
            for field in configuredCredentials where !present.contains(field.lowercasedName) {
                fields[field.name] = field.value
            }
        }
        var prepared: URLRequest
        if timeoutIsAssigned {
            prepared = request.duplicatedWithAssignedTimeout(headerFields: fields)
        } else {
            prepared = request
            prepared.allHTTPHeaderFields = fields
        }
        // The session handles cookies; the transport must not.
        prepared.httpShouldHandleCookies = false
        if case .lowercased(let url) = form { prepared.url = url }
        return (prepared, setsFraming)
    }

    /// Stores the cookies `response` sets, if the session keeps cookies.
    func storeCookies(from response: ResponseHead) {
        cookieStore?.storeCookies(from: response)
    }

    /// The number of requests running now (for leak checks).
    var runningRequestCount: Int { registry.count }
}
