import Foundation

/// Answers one request; called on the request's connection queue, never on the main thread.
///
/// A handler should return quickly: it holds up only its own connection, but
/// a blocked handler occupies a thread. To answer late, return ``Reply/delayed(_:_:)``.
public typealias RequestHandler = @Sendable (ServerRequest) -> Reply

/// A small HTTP/1.1 server on 127.0.0.1 (or ::1) with an ephemeral port — a
/// **test fixture, not a production server**.
///
/// It exists so HTTP tests, the demo's `--offline` mode and the benchmarks run
/// without a network: each test starts its own server, points a client at
/// ``url(_:)``, and chooses per request what the server does, including the
/// misbehaviours real servers show (slow, truncated, silent, closing, raw
/// bytes; see ``Reply``), and bodies far larger than memory in either
/// direction. It has no TLS, no authentication, no content negotiation (gzip
/// only when a reply asks for it), and trusts its clients; never expose it
/// beyond the loopback interface.
///
/// ```swift
/// let server = try LoopbackServer(routes: [
///     "/hello": { _ in .text("hello") },
///     "/echo": { .echo($0) },
///     "/slow": { _ in .delayed(0.5, .json(#"{"ok":true}"#)) },
/// ])
/// defer { server.shutdown() }
/// let (data, _) = try await URLSession.shared.data(from: server.url("/hello"))
/// ```
///
/// ## Protocol
/// HTTP/1.1 with keep-alive (closed after a request with `Connection: close`,
/// or an HTTP/1.0 request without `keep-alive`), pipelined requests answered
/// in order, request bodies framed by `Content-Length` or chunked, and
/// `Expect: 100-continue`. A malformed request is answered `400` (`505` for
/// another HTTP version, `501` for an unknown transfer coding), a request head
/// over 64 KiB `431`; then the connection closes.
///
/// Request bodies are kept in memory up to `bodyBufferLimit` (64 MiB unless
/// set in the initializer). A larger body is answered `413` (then the
/// connection closes), unless the server was made with
/// ``OversizedBodies/truncate``: then a body of any size is read as it
/// arrives, only its first `bodyBufferLimit` bytes are kept, and the handler
/// gets the whole body's ``ServerRequest/bodyLength`` and
/// ``ServerRequest/bodyDigest``. Multipart bodies are split into parts only
/// when kept whole (``ServerRequest/multipartParts()``).
///
/// Replies of any size are written as fast as the client reads them. Generated
/// and gzip bodies (``Reply/generated(status:headers:length:content:chunked:chunkSize:interval:)``,
/// ``Reply/gzip(status:headers:decodedLength:content:chunked:chunkSize:interval:)``)
/// are produced as the client reads, with back-pressure: at most about 1 MiB
/// waits per connection, so a server can send gibibytes with flat memory.
/// Other replies are built whole before they are sent.
///
/// ## IPv6
/// `LoopbackServer(host: .ipv6)` listens on ::1 and ``url(_:)`` gives
/// `http://[::1]:<port>/…`. On Linux, swift-corelibs-foundation's `URLSession`
/// cannot reach IPv6 literal hosts; test with a raw socket there.
///
/// ## Threading
/// Connections are accepted on a private serial queue; each connection has its
/// own serial queue, on which its requests are read, the handler is called,
/// and its replies (including pauses, scheduled with `asyncAfter`) are written.
/// A slow or silent reply therefore never holds up another connection. All
/// properties and methods may be used from any thread.
///
/// ## Lifetime
/// ``shutdown()`` (also run by `deinit`) closes the listening socket and every
/// open connection, including ones waiting in a delayed, trickling or
/// never-answered reply. A handler that captures its server keeps it alive:
/// call ``shutdown()`` explicitly in that case.
public final class LoopbackServer: Sendable {
    /// The loopback address a server listens on.
    public enum Host: Sendable, Equatable {
        /// 127.0.0.1; URLs look like `http://127.0.0.1:8080/`.
        case ipv4
        /// ::1; URLs look like `http://[::1]:8080/`.
        ///
        /// - Note: swift-corelibs-foundation's `URLSession` cannot reach IPv6
        ///   literal hosts on Linux; use a raw socket (or another client) there.
        case ipv6

        /// The host as written in a URL: `127.0.0.1` or `[::1]`.
        public var urlLiteral: String {
            switch self {
            case .ipv4: "127.0.0.1"
            case .ipv6: "[::1]"
            }
        }
    }

    /// What the server does with a request body larger than its `bodyBufferLimit`.
    public enum OversizedBodies: Sendable, Equatable {
        /// Answer `413 Content Too Large` (before reading the body when its
        /// length is announced) and close the connection. The default.
        case reject
        /// Read the whole body as it arrives, keep only its first
        /// `bodyBufferLimit` bytes in ``ServerRequest/body``, and report the
        /// whole body's ``ServerRequest/bodyLength`` and ``ServerRequest/bodyDigest``;
        /// ``ServerRequest/bodyIsTruncated`` is `true`. Memory stays bounded
        /// whatever the upload's size.
        case truncate
    }

    /// The port the server listens on.
    public let port: Int
    /// The address the server listens on.
    public let host: Host
    /// `http://127.0.0.1:<port>` or `http://[::1]:<port>`.
    public let baseURL: URL

    private let listener: Listener

    /// Starts a server on a loopback address on an ephemeral port.
    ///
    /// The server accepts connections as soon as this returns.
    /// - Parameters:
    ///   - host: 127.0.0.1 (the default) or ::1.
    ///   - bodyBufferLimit: the most bytes of a request body kept in memory; 64 MiB by default.
    ///   - oversizedBodies: what happens to a body over `bodyBufferLimit`: refused
    ///     with `413` (the default), or read to the end and truncated.
    ///   - handler: decides the reply to every request.
    /// - Throws: ``LoopbackServerError`` naming the system call that failed (with its `errno` text),
    ///   for example when the machine has no IPv6 loopback.
    public init(
        host: Host = .ipv4, bodyBufferLimit: Int = 64 << 20, oversizedBodies: OversizedBodies = .reject,
        handler: @escaping RequestHandler
    ) throws(LoopbackServerError) {
        let (fd, port) = try Socket.makeBoundSocket(ipv6: host == .ipv6)
        do throws(LoopbackServerError) {
            try Socket.listen(fd, backlog: 1024)
            guard let baseURL = URL(string: "http://\(host.urlLiteral):\(port)") else {
                throw LoopbackServerError(operation: "URL(string: http://\(host.urlLiteral):\(port))", errorNumber: 0)
            }
            self.port = port
            self.host = host
            self.baseURL = baseURL
        } catch {
            Socket.close(fd)
            throw error
        }
        let parser = HTTPRequestParser(bodyBufferLimit: bodyBufferLimit, truncatesLargeBodies: oversizedBodies == .truncate)
        listener = Listener(listenFD: fd, port: port, parser: parser, handler: handler)
        listener.start()
    }

    /// Starts a server that routes requests by exact path (query ignored).
    ///
    /// A path with no route is answered `404` with the text `no route for <path>`.
    /// - Parameters:
    ///   - host: 127.0.0.1 (the default) or ::1.
    ///   - bodyBufferLimit: the most bytes of a request body kept in memory; 64 MiB by default.
    ///   - oversizedBodies: what happens to a body over `bodyBufferLimit`.
    ///   - routes: a handler per path, for example `["/users": { _ in .json("[]") }]`.
    /// - Throws: ``LoopbackServerError`` when the socket cannot be set up.
    public convenience init(
        host: Host = .ipv4, bodyBufferLimit: Int = 64 << 20, oversizedBodies: OversizedBodies = .reject,
        routes: [String: RequestHandler]
    ) throws(LoopbackServerError) {
        try self.init(host: host, bodyBufferLimit: bodyBufferLimit, oversizedBodies: oversizedBodies) { request in
            guard let route = routes[request.path] else {
                return .text("no route for \(request.path)", status: 404)
            }
            return route(request)
        }
    }

    deinit {
        listener.shutdown()
    }

    /// A URL on this server.
    ///
    /// A missing leading `/` is added. Characters not allowed in a URL are
    /// percent-encoded; if the result still is not a URL, ``baseURL`` is returned.
    /// - Parameter pathAndQuery: for example `"/search?q=swift"`.
    /// - Returns: `baseURL` followed by `pathAndQuery`.
    public func url(_ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        let base = baseURL.absoluteString
        if let url = URL(string: base + suffix) { return url }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert(charactersIn: "#")
        if let encoded = suffix.addingPercentEncoding(withAllowedCharacters: allowed),
           let url = URL(string: base + encoded) {
            return url
        }
        return baseURL
    }

    /// How many requests were read completely so far (answered or not).
    public var requestCount: Int { listener.requestCount }

    /// Stops the listening socket's read source, as if its events were lost
    /// (for tests of the sweep that accepts without it).
    func silenceAcceptSource() {
        listener.silenceSource()
    }

    /// Stops the sweep, waiting for one already running to end: from now on
    /// only the listening socket's read source accepts (for a test that the
    /// source the sweep installed works).
    func stopSweep() {
        listener.stopSweep()
    }

    /// Stops the sweep once a connection's sweep has replaced one of its
    /// sources: from then on only the replacement serves it (for a test).
    func stopSweepAfterMiss() {
        listener.stopSweepAfterMiss()
    }

    /// Makes the read or write sources of the connections accepted from now
    /// on lose their events (for tests of the sweep that serves them without).
    func silenceConnectionSources(read: Bool = false, write: Bool = false) {
        listener.silenceConnectionSources(read: read, write: write)
    }

    /// How often a connection's sweep read or wrote what its source had not reported.
    var missedSourceEvents: Int { listener.missedSourceEvents }

    /// How many connections the listener's sweep accepted because its source had not reported them.
    var sweptConnections: Int { listener.sweptConnections }

    /// Whether an open connection found its socket too full for a reply (for tests of the sweep).
    var someConnectionWaitsToWrite: Bool { listener.someConnectionWaitsToWrite }

    /// How many connections were accepted so far.
    public var connectionCount: Int { listener.connectionCount }

    /// How many connections are open now (accepted and not yet closed).
    public var openConnectionCount: Int { listener.openConnectionCount }

    /// Stops the server: closes the listening socket and every open connection.
    ///
    /// When this returns, new connections are refused and every open connection
    /// has been shut down (clients see it end); descriptors are released
    /// moments later, after which ``openConnectionCount`` is 0. Calling it again does nothing.
    /// - Warning: Do not call it from inside a handler and then wait for
    ///   ``openConnectionCount`` to reach 0 there: the handler's own connection
    ///   cannot finish closing until the handler returns.
    public func shutdown() {
        listener.shutdown()
    }

    /// A port on a loopback address that nothing listens on, for connection-refused tests.
    ///
    /// Binds port 0 without `SO_REUSEADDR` and keeps the socket open, never
    /// listening, until the process exits: a connection is refused, and no
    /// server can bind the port meanwhile — closed at once, the port went
    /// back to the system, and a server of a test running in parallel could
    /// be given it, so the "refused" request reached that server.
    /// - Parameter host: 127.0.0.1 (the default) or ::1.
    /// - Returns: the port.
    /// - Throws: ``LoopbackServerError`` when no socket can be bound.
    public static func unusedPort(host: Host = .ipv4) throws(LoopbackServerError) -> Int {
        let (_, port) = try Socket.makeBoundSocket(ipv6: host == .ipv6, reuseAddress: false)
        return port
    }
}
