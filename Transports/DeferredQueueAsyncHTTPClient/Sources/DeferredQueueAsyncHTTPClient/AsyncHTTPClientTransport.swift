import AsyncHTTPClient
import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOPosix
import Synchronization

/// An ``HTTPTransport`` over swift-server's AsyncHTTPClient (SwiftNIO): the
/// same requests as on ``URLSessionTransport``, without the defects of
/// swift-corelibs-foundation's URLSession on Linux.
///
/// ```swift
/// import DeferredQueueAsyncHTTPClient
///
/// let session = Session(transport: AsyncHTTPClientTransport())
/// let user = try await session.request(url).serializingDecodable(User.self).value
/// ```
///
/// The ``Session`` still decides redirects, authentication, cookies, retries
/// and deadlines: requests behave as they do on ``URLSessionTransport``.
/// AsyncHTTPClient only moves bytes; the transport decodes `gzip` and
/// `deflate` bodies (nested too) with the library's ``ContentDecoder``.
///
/// ## Threads
///
/// Each step of an attempt runs on a known thread:
///
/// - ``startAttempt(_:events:)`` runs on the thread that starts the attempt
///   (the one that resumed the request, or ``callbackQueue`` for a redirect,
///   a retry or an authentication round trip). It converts the `URLRequest`
///   and hands it to the client on the event loop the attempt will run on
///   (one wake-up of that loop for the client and the attempt's start of
///   its idle timeout); it never waits.
/// - A SwiftNIO event loop of the client connects, writes, reads and parses;
///   the transport decodes compressed bodies there, a bounded step at a time. The transport's code there only copies bytes, notes the
///   time of the last activity (the idle timeout) and hands every event over
///   to ``callbackQueue`` with `async` — except a collected response's end,
///   which it offers to the session on the loop: when finishing the request
///   runs none of your code (see `Session`'s "Threading"), the session
///   settles it there and resumes the request's handler queue, a thread hop
///   sooner. No handler, serializer, event monitor, adapter, redirector,
///   retrier or validator closure of yours ever runs on an event loop.
/// - ``callbackQueue``, the transport's own serial queue, receives every
///   other ``HTTPTransportEvents`` call of every attempt, in order; the session's
///   decisions (redirects, retries) run on it. Each request's validation and
///   serialization run on the request's own queue, in parallel with other
///   requests' (see the session's `serializationQueue`).
/// - ``HTTPTransportTask/cancel()`` may be called from any thread; it fails
///   the client's task, whose ending arrives on ``callbackQueue`` like any other.
/// - ``shutdown()`` runs where the last session using the transport goes;
///   it starts closing the connections of a client this transport created,
///   and returns. Later attempts fail with an error that says so.
///
/// ## Memory
///
/// A streamed body (a download, a stream) is read from the socket only as
/// fast as ``callbackQueue`` takes its chunks: once 1 MiB of an attempt's
/// chunks wait there, the client stops reading until half of them were
/// handled, and TCP slows the server down. A download written to disk or a
/// stream handler on ``callbackQueue`` (as `streamingData()` uses) therefore
/// never lets a fast server fill memory. Chunks a stream handler receives on
/// another queue, and chunks an `AsyncThrowingStream` buffers for a slow
/// consumer, are past this point. A request body streamed from a file (a
/// file upload, a large multipart form) is read at most 4 MiB ahead of what
/// the socket took.
///
/// ## The client
///
/// AsyncHTTPClient must not follow redirects itself (the session does), and
/// it keeps a client's configuration to itself, so the transport builds its
/// own client from a configuration — ``init(configuration:negotiatesHTTP2:eventLoopGroup:)``,
/// `HTTPClient.shared`'s by default — overriding what the session decides:
///
/// - `redirectConfiguration` is `.disallow`;
/// - `decompression` is `.disabled`: the transport decodes `gzip` and
///   `deflate` itself, a bounded step at a time, so the session's limits stop
///   a compression bomb in time (NIO inflates a whole read into one buffer);
/// - `timeout.read` is `nil`: each request's own idle timeout applies;
/// - `connectionPool.retryConnectionEstablishment` is `false`: the session's
///   ``RetryPolicy`` decides retries;
/// - a no-op tracer is removed (AsyncHTTPClient would still build every
///   request's span attributes for it); a tracer the process bootstrapped stays;
/// - `httpVersion` is `.http1Only`, unless you pass `negotiatesHTTP2: true`
///   (see "HTTP/2").
///
/// Your TLS, proxy, connection pool and timeout settings are kept. The
/// transport shuts its client down with the session.
///
/// ## HTTP/2
///
/// The transport's own client speaks HTTP/1.1 unless `negotiatesHTTP2` is
/// `true`: AsyncHTTPClient 1.37 does not close an HTTP/2 connection that
/// broke (SwiftNIO's HTTP/2 handler sends `GOAWAY` and leaves the closing to
/// it), and a server that then keeps sending frames grows the process
/// without bound. With `negotiatesHTTP2: true` the
/// transport closes such a connection as soon as the client sends its
/// `GOAWAY` (its requests fail at once with `.networkConnectionLost`, where
/// they waited for their timeout), but only from the moment the connection
/// is ready: a server that floods before its first `SETTINGS` frame still
/// grows the process, and nothing the client lets the transport hook runs
/// earlier. Negotiate HTTP/2 only with servers you trust. A client you pass
/// to ``init(client:configuration:)`` speaks the HTTP versions you created it
/// with and gets no such closing. The clients the transport makes for hosts
/// whose server trust is evaluated close broken connections this way and
/// negotiate as its own client does: HTTP/1.1 only beside a client you
/// passed (the transport cannot read whether yours offers HTTP/2).
///
/// Over HTTP/2 a server's `GOAWAY` (nginx sends one after
/// `keepalive_requests`) leaves the streams above its last one unprocessed,
/// and a `REFUSED_STREAM` reset one; the transport sends such a request
/// again as below. SwiftNIO reports those streams as reset with `CANCEL`,
/// which a server may also send for a stream it did process, so a request
/// with a body or a method that is not idempotent fails with
/// `.networkConnectionLost` instead, as on a lost HTTP/1.1 connection.
/// A request is sent again once: where a server closes each connection
/// after fewer requests than are in flight on it, the resent streams can
/// be dropped again, and a ``RetryPolicy`` (which retries
/// `.networkConnectionLost`) carries them through.
///
/// To share a client you already run, pass it with ``init(client:configuration:)``.
/// The transport cannot read the client's settings, so that is on your word:
/// the client must have been created with `redirectConfiguration: .disallow`
/// (otherwise AsyncHTTPClient follows redirects before the session's rules
/// for methods, bodies, credentials and cookies see them); pass the
/// configuration you created it with so that the transport knows whether it
/// decompresses and can explain certificate failures. You shut that client down.
///
/// ## Server trust
///
/// A ``Session`` with a `ServerTrustManager` hands each attempt to an
/// evaluated `https` host its evaluator. The transport gives every such host
/// (and evaluator's `handshakeRequirements`) a client of its own, built from
/// the same configuration (the one passed to ``init(client:configuration:)``,
/// or AsyncHTTPClient's default when none was) with the TLS settings the
/// evaluator requires: BoringSSL verifies the chain during the handshake,
/// against the configuration's roots or only the anchors the evaluator names,
/// and the evaluator then runs on the certificate that connection presented,
/// on ``callbackQueue``, before the connection takes its first request. A
/// refusal fails the request with the evaluator's `HTTPError`; a chain the
/// handshake refused is `serverTrustEvaluationFailed(reason: .defaultEvaluationFailed)`
/// explaining why. swift-nio-ssl shows only the leaf after the handshake:
/// when no pin matches it, the chain above is read in a second handshake
/// (once per leaf, never through a proxy) and believed only where its
/// signatures lead up from the leaf. Revocation cannot be checked, and fails:
/// see the DocC article "Trusting servers".
/// Client certificates: ``init(configuration:clientIdentity:negotiatesHTTP2:eventLoopGroup:)``.
///
/// ## Errors
///
/// Attempts fail with a `URLError`, as on URLSession: `.timedOut` (idle or
/// connect timeout), `.cannotConnectToHost` (refused, unreachable),
/// `.cannotFindHost`, `.networkConnectionLost` (the connection closed early,
/// a body cut short), `.badServerResponse` (a malformed response),
/// `.cannotDecodeContentData` (a corrupt compressed body), a TLS code (below),
/// `.cancelled`, and otherwise `.unknown`; the client's own error is in
/// `userInfo[NSUnderlyingErrorKey]`.
///
/// A server may close a kept-alive connection at any time, and the client
/// learns of it only when it reads; AsyncHTTPClient fails a request it sent
/// there meanwhile. The transport sends such a request again, once, on
/// another connection, when that changes nothing on the server: an
/// idempotent method without a body, lost before any byte of a response
/// (as libcurl does under URLSession). Anything else fails with
/// `.networkConnectionLost`, which ``RetryPolicy`` retries for idempotent methods.
///
/// A TLS failure says so in its description, names the host, and carries
/// Apple's code for it: `.serverCertificateUntrusted` (self-signed, or not
/// issued for the URL's host), `.serverCertificateHasUnknownRoot` (issued by
/// a CA the client does not trust), `.serverCertificateHasBadDate` (expired),
/// `.serverCertificateNotYetValid`, `.clientCertificateRequired` /
/// `.clientCertificateRejected`, and `.secureConnectionFailed` (any other
/// handshake failure). BoringSSL reports only that a chain did not verify,
/// so for that failure the transport opens one more TLS handshake to the
/// same server, reads the certificates it presents and rejects them
/// (nothing of the request is sent; not through a proxy; at most 10
/// seconds); see `CertificateDiagnosis`. To trust a private CA, pass a client
/// whose `HTTPClient.Configuration.tlsConfiguration` adds it
/// (`additionalTrustRoots`): an expired or misnamed certificate under it
/// still fails, with its own code.
public final class AsyncHTTPClientTransport: HTTPTransport {
    public let callbackQueue: DispatchQueue
    /// `"gzip, deflate"` when the client decodes them, otherwise `nil`.
    public let acceptEncoding: String?

    /// The client requests run on: the one passed in, or the transport's own.
    public let client: HTTPClient

    /// Whether ``client`` was created by the transport (and is shut down by it).
    let ownsClient: Bool
    /// Finds why a server's certificate chain did not verify (see "Errors").
    let diagnosis: CertificateDiagnosis?
    /// Whether attempts decode bodies with a ``ContentDecoder`` (the client does not).
    let decodesBodies: Bool
    /// The clients of hosts whose server trust is evaluated.
    let trustClients: ServerTrustClients
    /// `true` (on SwiftNIO's POSIX event loops: always on Linux): every
    /// attempt's ``HTTPTransportAttempt/serverTrustEvaluator`` runs on each
    /// connection opened for it, after the handshake and before anything is
    /// sent (see "Server trust"). `false` on Network.framework's event loops
    /// (AsyncHTTPClient's default on Apple platforms), which have no
    /// swift-nio-ssl handler to read: a session then refuses evaluated hosts.
    public let supportsServerTrustEvaluation: Bool
    private let isShutDown = Atomic(false)
    /// Keeps quiet traffic on one event loop (see `EventLoopAffinity`).
    let affinity: EventLoopAffinity
    /// The idle timeouts of every running attempt (see `IdleWatch`).
    let idleWatch = IdleWatch()

    /// Creates a transport with a client of its own, built from
    /// `configuration` with the overrides listed in "The client".
    ///
    /// - Parameters:
    ///   - configuration: The client's settings (TLS, proxy, pool, connect
    ///     timeout). Default: `HTTPClient.shared`'s.
    ///   - negotiatesHTTP2: Whether the client offers HTTP/2 (its
    ///     `httpVersion` as `configuration` sets it) rather than HTTP/1.1
    ///     only; `false` by default, because a hostile HTTP/2 server can
    ///     exhaust the process's memory (see "HTTP/2").
    ///   - eventLoopGroup: The event loops it runs on. Default: `HTTPClient.shared`'s.
    public convenience init(
        configuration: HTTPClient.Configuration = .singletonConfiguration,
        negotiatesHTTP2: Bool = false,
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup
    ) {
        self.init(setup: ClientSetup(configuration: configuration, negotiatesHTTP2: negotiatesHTTP2, eventLoopGroup: eventLoopGroup))
    }

    /// Creates a transport with a client of its own that presents
    /// `clientIdentity` to servers that ask for a client certificate
    /// (mutual TLS), otherwise as ``init(configuration:negotiatesHTTP2:eventLoopGroup:)``.
    ///
    /// - Parameters:
    ///   - configuration: The client's settings. Default: `HTTPClient.shared`'s.
    ///   - clientIdentity: The certificate and key to present.
    ///   - negotiatesHTTP2: Whether the client offers HTTP/2 (see ``init(configuration:negotiatesHTTP2:eventLoopGroup:)``).
    ///   - eventLoopGroup: The event loops it runs on. Default: `HTTPClient.shared`'s.
    public convenience init(
        configuration: HTTPClient.Configuration = .singletonConfiguration,
        clientIdentity: TLSClientIdentity,
        negotiatesHTTP2: Bool = false,
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup
    ) {
        var configuration = configuration
        var tls = configuration.tlsConfiguration ?? .makeClientConfiguration()
        clientIdentity.apply(to: &tls)
        configuration.tlsConfiguration = tls
        self.init(setup: ClientSetup(configuration: configuration, negotiatesHTTP2: negotiatesHTTP2, eventLoopGroup: eventLoopGroup))
    }

    /// Creates a transport on a client you run (and shut down).
    ///
    /// `HTTPClient.shared` follows redirects: for it the transport builds a
    /// client of its own, as ``init(configuration:negotiatesHTTP2:eventLoopGroup:)`` does.
    ///
    /// - Parameters:
    ///   - client: A client created with `redirectConfiguration: .disallow`
    ///     (the transport cannot check it; see "The client").
    ///   - configuration: The configuration `client` was created with, if you
    ///     have it: the transport then knows whether the client decompresses
    ///     (and asks for `gzip, deflate` if so), and explains certificate
    ///     failures. `nil`: the client is assumed not to decompress.
    public convenience init(client: HTTPClient, configuration: HTTPClient.Configuration? = nil) {
        if client === HTTPClient.shared {
            self.init()
        } else {
            self.init(setup: ClientSetup(client: client, configuration: configuration))
        }
    }

    /// A transport whose certificate diagnosis waits at most `diagnosisDeadline`
    /// (tests: one longer than any request's timeout).
    convenience init(configuration: HTTPClient.Configuration = .singletonConfiguration, diagnosisDeadline: TimeAmount) {
        self.init(
            setup: ClientSetup(configuration: configuration, negotiatesHTTP2: false, eventLoopGroup: HTTPClient.defaultEventLoopGroup),
            diagnosisDeadline: diagnosisDeadline
        )
    }

    private init(setup: ClientSetup, diagnosisDeadline: TimeAmount = PresentedChainReader.deadline) {
        callbackQueue = DispatchQueue(label: "DeferredQueue.AsyncHTTPClientTransport")
        client = setup.client
        affinity = EventLoopAffinity(group: setup.client.eventLoopGroup)
        ownsClient = setup.ownsClient
        acceptEncoding = setup.acceptEncoding
        decodesBodies = setup.transportDecodes
        diagnosis = setup.configuration.flatMap {
            CertificateDiagnosis(configuration: $0, group: setup.client.eventLoopGroup, deadline: diagnosisDeadline)
        }
        supportsServerTrustEvaluation = ClientBootstrap(validatingGroup: setup.client.eventLoopGroup.next()) != nil
        trustClients = ServerTrustClients(
            base: setup.evaluatedHostsConfiguration, group: setup.client.eventLoopGroup, queue: callbackQueue
        )
    }

    deinit {
        // A transport that never served a session (or whose session never
        // went away) still releases its own client.
        shutdown()
    }

    public func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask {
        startAttempt(attempt, events: events, mayResend: true)
    }

    /// `mayResend`: whether the attempt may be sent again if its connection
    /// closed under it (not the second time).
    func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents, mayResend: Bool) -> any HTTPTransportTask {
        // The client would say only `alreadyShutdown` (an evaluated host's, as a trust failure).
        guard !isShutDown.load(ordering: .acquiring) else {
            let error = URLError(.unknown, userInfo: [
                NSLocalizedDescriptionKey: "The AsyncHTTPClientTransport was shut down when the last Session using it was released; give a new Session a new transport.",
                NSURLErrorFailingURLErrorKey: attempt.request.url as Any,
            ])
            callbackQueue.async { events.didComplete(body: nil, error: error) }
            return CompletedAttemptTask()
        }
        // Refused here, as on URLSession, rather than by whichever of the client's own checks it meets.
        if let violation = attempt.requestSyntaxViolation {
            callbackQueue.async { events.didComplete(body: nil, error: violation) }
            return CompletedAttemptTask()
        }
        let request: HTTPClient.Request
        // Only a body streamed from a file needs one (most requests have none).
        let window = attempt.bodyFile == nil ? nil : RequestBodyWindow()
        do {
            request = try RequestConversion.clientRequest(from: attempt.request, bodyFile: attempt.bodyFile, window: window)
        } catch {
            // Reported on the callback queue, like every event.
            let urlError = ErrorMapping.urlError(for: error, url: attempt.request.url)
            callbackQueue.async { events.didComplete(body: nil, error: urlError) }
            return CompletedAttemptTask()
        }
        var client = self.client
        var diagnosis = self.diagnosis
        var evaluatedTrust: (host: String, requirements: ServerTrustRequirements)?
        var trustClient: ServerTrustClients.Entry?
        if let evaluator = attempt.serverTrustEvaluator, let host = attempt.request.url?.host {
            do {
                let entry = try trustClients.entry(forHost: host, evaluator: evaluator)
                (client, diagnosis, trustClient) = (entry.client, entry.diagnosis, entry)
                evaluatedTrust = (host, evaluator.handshakeRequirements)
            } catch {
                callbackQueue.async { events.didComplete(body: nil, error: error) }
                return CompletedAttemptTask()
            }
        }
        let running = AsyncHTTPClientAttempt(
            url: request.url, attempt: attempt, asksToUpgrade: request.headers.contains(name: "upgrade"),
            decodesBody: decodesBodies, events: events, queue: callbackQueue,
            requestBodyWindow: window,
            // As the conversion measured it (a file's, once), or the data's.
            requestBodySize: request.body?.contentLength,
            diagnosis: diagnosis, evaluatedTrust: evaluatedTrust, trustClient: trustClient, affinity: affinity, idleWatch: idleWatch,
            resend: mayResend && Self.isResendable(attempt.request, bodyFile: attempt.bodyFile) ? Resend(transport: self, attempt: attempt) : nil
        )
        let (loop, preference) = affinity.started()
        let execute: @Sendable () -> Void = { [client] in running.attach(client.execute(request: request, delegate: running, eventLoop: preference)) }
        if loop.inEventLoop { execute() } else { loop.execute(execute) }
        return running
    }

    /// What an attempt that may be sent again keeps to send it (see
    /// "A connection the server closed" in `AsyncHTTPClientAttempt`).
    struct Resend: Sendable {
        /// Weak: a transport that went away sends nothing again.
        weak var transport: AsyncHTTPClientTransport?
        let attempt: HTTPTransportAttempt

        /// Starts the attempt again, unless the transport shut down; the new
        /// attempt is not sent a third time.
        func start(events: any HTTPTransportEvents) -> (any HTTPTransportTask)? {
            guard let transport, !transport.isShutDown.load(ordering: .acquiring) else { return nil }
            return transport.startAttempt(attempt, events: events, mayResend: false)
        }
    }

    /// Whether a request may be sent again when its connection closed before
    /// any byte of a response arrived: sending it twice must change nothing
    /// on the server (an idempotent method, RFC 9110 §9.2.2), and it has no
    /// body to send again.
    static func isResendable(_ request: URLRequest, bodyFile: URL?) -> Bool {
        guard bodyFile == nil, request.httpBody?.isEmpty ?? true, request.httpBodyStream == nil else { return false }
        // A switch, not an array literal: this runs for every attempt.
        switch request.httpMethod ?? "GET" {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": return true
        default: return false
        }
    }

    /// Shuts down ``client`` if the transport created it (never
    /// `HTTPClient.shared`, never a client you passed). Idempotent.
    public func shutdown() {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        trustClients.shutdown()
        guard ownsClient else { return }
        // Outstanding requests fail; the client lives until its connections closed.
        client.shutdown().whenComplete { _ in }
    }
}

/// The handle of an attempt that never reached the client (its request
/// could not be converted): nothing to cancel.
struct CompletedAttemptTask: HTTPTransportTask {
    func cancel() {}
}
