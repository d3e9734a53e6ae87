import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Moves the bytes of one HTTP exchange; a ``Session`` decides everything else.
///
/// A transport sends a prepared `URLRequest` and reports what comes back. It
/// does **not** follow redirects, answer authentication challenges, store or
/// send cookies, retry, judge the outcome or choose limits and timeouts: the
/// session does all of that, the same way for every transport, and hands the
/// transport an ``HTTPTransportAttempt`` whose values are ready to apply. So
/// a request behaves identically on ``URLSessionTransport`` and on another
/// transport (the `DeferredQueueAsyncHTTPClient` package's
/// `AsyncHTTPClientTransport`). <doc:WritingATransport> walks through
/// writing one.
///
/// ## Contract
///
/// For each call of ``startAttempt(_:events:)`` the transport reports, on
/// ``callbackQueue`` and one at a time:
///
/// 1. exactly one ``HTTPTransportEvents/didReceive(response:)`` when a
///    response head arrived (a 3xx or a 401 included, never followed or
///    answered), before any other event about the response; none when the
///    attempt failed before a head,
/// 2. then, when ``HTTPTransportAttempt/collectsBody`` is `false`, any number
///    of ``HTTPTransportEvents/didReceive(data:handled:)`` with the body
///    decoded from its `Content-Encoding`, and, while the request body goes
///    out, any number of ``HTTPTransportEvents/didSend(bytes:of:)``,
/// 3. then exactly one ``HTTPTransportEvents/didComplete(body:error:)``, and
///    nothing after it.
///
/// A collecting attempt keeps its body in an ``HTTPBodyCollector``, which
/// refuses to grow past the attempt's limit; the transport then stops the
/// transfer at once and completes with the collector's error.
///
/// ``HTTPTransportTask/cancel()`` may be called from any thread at any moment,
/// any number of times; a cancelled attempt still completes (with an error).
///
/// An attempt that receives nothing for ``HTTPTransportAttempt/idleTimeout``
/// seconds completes with `URLError.timedOut`.
public protocol HTTPTransport: Sendable {
    /// The serial queue on which every event of every attempt is reported.
    ///
    /// The session makes its decisions (redirects, adapters, retriers) on
    /// it; validation and serialization run on each request's own queue.
    var callbackQueue: DispatchQueue { get }

    /// The `Accept-Encoding` value naming the content codings this transport
    /// decodes, sent by a ``Session`` unless the caller sets the header.
    var acceptEncoding: String? { get }

    /// Whether the transport can write a response body to a file itself
    /// (``HTTPTransportAttempt/downloadsToFile``), more cheaply than the
    /// session writing the chunks it reports. `false` by default.
    var supportsDownloadsToFile: Bool { get }

    /// Whether the transport runs an attempt's ``HTTPTransportAttempt/serverTrustEvaluator``
    /// on each connection, after the handshake and before sending. `false`
    /// by default: a ``Session`` then refuses every request whose host its
    /// ``ServerTrustManager`` evaluates, rather than send it unevaluated.
    var supportsServerTrustEvaluation: Bool { get }

    /// Whether the transport can send a `GET` request with a body. `true` by
    /// default; a ``Session`` refuses such a request with
    /// ``HTTPError/URLRequestValidationFailureReason/bodyDataInGETRequest(_:)``
    /// on a transport that cannot, rather than let it fail on the way out.
    var supportsBodyInGETRequests: Bool { get }

    /// Starts one attempt.
    ///
    /// - Parameters:
    ///   - attempt: What to send and how to hand back the body.
    ///   - events: Receives the attempt's events on ``callbackQueue``.
    /// - Returns: A handle that cancels the attempt.
    func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask

    /// Called when the last ``Session`` using the transport goes away, after
    /// its last request completed: release connections. Sessions count the
    /// users of a transport that is a class; a transport that is a value is
    /// shut down by every session that goes, so make a transport that holds
    /// a shared client a class. Calls after the first should do nothing,
    /// and an attempt started later (a new session given the same
    /// transport) should fail with an error that says the transport was shut down.
    func shutdown()
}

extension HTTPTransport {
    public var supportsDownloadsToFile: Bool { false }
    public var supportsServerTrustEvaluation: Bool { false }
    public var supportsBodyInGETRequests: Bool { true }
}

/// A running attempt's handle.
public protocol HTTPTransportTask: Sendable {
    /// Cancels the attempt if it is still running; it then completes with an
    /// error. Safe from any thread, idempotent, a no-op once completed.
    func cancel()
}
