import AsyncHTTPClient
import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
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
///   and hands it to the client; it never waits.
/// - A SwiftNIO event loop of the client connects, writes, reads and parses;
///   the transport decodes compressed bodies there, a bounded step at a time. The transport's code there only copies bytes, notes the
///   time of the last activity (the idle timeout) and hands every event over
///   to ``callbackQueue`` with `async`: no handler, validator, serializer,
///   event monitor or adapter of the session ever runs on an event loop.
/// - ``callbackQueue``, the transport's own serial queue, receives every
///   ``HTTPTransportEvents`` call of every attempt, in order; the session's
///   decisions (redirects, retries) and each request's validation and
///   serialization run on it, or on queues that target it.
/// - ``HTTPTransportTask/cancel()`` may be called from any thread; it fails
///   the client's task, whose ending arrives on ``callbackQueue`` like any other.
/// - ``shutdown()`` runs where the session's last reference goes; it starts
///   closing the connections of a client this transport created, and returns.
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
/// AsyncHTTPClient must not follow redirects itself (the session does).
/// `HTTPClient.shared` follows redirects, so for it
/// the transport creates a client of its own, on the same event loop group,
/// with `HTTPClient.shared`'s configuration except: no redirects, no
/// decompression by the client (NIO inflates a whole read into one buffer:
/// the transport decodes `gzip` and `deflate` itself, a bounded step at a
/// time, so the session's limits stop a compression bomb in time), no read
/// timeout (the transport applies each request's own), no retry of a
/// refused connection (the session's ``RetryPolicy`` decides retries), and
/// no tracer unless the process bootstrapped one (for the no-op tracer,
/// AsyncHTTPClient would still build every request's span attributes).
///
/// A client you pass is used as it is when its configuration disallows
/// redirects: configure it with `redirectConfiguration: .disallow`, and with
/// `decompression: .enabled(limit:)` if responses may be compressed (NIO
/// then decodes, bounded only by that limit). If it follows redirects, the
/// transport creates a client of its own from a copy of its configuration
/// with redirects disallowed and decompression left to the transport's
/// bounded decoder (your TLS, proxy, HTTP version, pool and tracing settings
/// are kept, except a no-op tracer; connections are not shared).
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
    private let isShutDown = Atomic(false)

    /// Creates a transport.
    ///
    /// - Parameter client: The AsyncHTTPClient to run requests on (default:
    ///   `HTTPClient.shared`, for which the transport creates a client of its
    ///   own that does not follow redirects; see "The client" above).
    public init(client: HTTPClient = .shared) {
        callbackQueue = DispatchQueue(label: "DeferredQueue.AsyncHTTPClientTransport")
        let setup = ClientSetup(client)
        self.client = setup.client
        ownsClient = setup.ownsClient
        acceptEncoding = setup.acceptEncoding
        decodesBodies = setup.transportDecodes
        diagnosis = ClientSetup.configuration(of: setup.client).flatMap {
            CertificateDiagnosis(configuration: $0, group: setup.client.eventLoopGroup)
        }
    }

    deinit {
        // A transport that never served a session (or whose session never
        // went away) still releases its own client.
        shutdown()
    }

    public func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask {
        let request: HTTPClient.Request
        let window = RequestBodyWindow()
        do {
            request = try RequestConversion.clientRequest(from: attempt.request, bodyFile: attempt.bodyFile, window: window)
        } catch {
            // Reported on the callback queue, like every event.
            let urlError = ErrorMapping.urlError(for: error, url: attempt.request.url)
            callbackQueue.async { events.didComplete(response: nil, body: nil, error: urlError) }
            return CompletedAttemptTask()
        }
        let running = AsyncHTTPClientAttempt(
            url: request.url, collectsBody: attempt.collectsBody, maximumBodySize: attempt.maximumBodySize ?? .max,
            decodesBody: decodesBodies,
            events: events, queue: callbackQueue,
            idleTimeout: Self.idleTimeout(attempt.request.timeoutInterval), requestBodyWindow: window,
            requestBodySize: attempt.bodyFile.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int64 }
                ?? attempt.request.httpBody.map { Int64($0.count) },
            diagnosis: diagnosis
        )
        let task = client.execute(request: request, delegate: running)
        running.attach(task)
        return running
    }

    /// Shuts down ``client`` if the transport created it (never
    /// `HTTPClient.shared`, never a client you passed). Idempotent.
    public func shutdown() {
        guard ownsClient, !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Outstanding requests fail; the client lives until its connections closed.
        client.shutdown().whenComplete { _ in }
    }

    /// The longest idle timeout applied: a year.
    static let maximumTimeout: Double = 365 * 86_400

    /// A request's `timeoutInterval` as the idle timeout: a zero, negative
    /// or NaN one is ``Session/defaultTimeout``, a huge one ``maximumTimeout``.
    static func idleTimeout(_ seconds: Double) -> TimeAmount {
        let valid = seconds.isNaN || seconds <= 0 ? Session.defaultTimeout : min(seconds, maximumTimeout)
        return .nanoseconds(Int64(valid * 1e9))
    }
}

/// The handle of an attempt that never reached the client (its request
/// could not be converted): nothing to cancel.
struct CompletedAttemptTask: HTTPTransportTask {
    func cancel() {}
}
