import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Moves the bytes of one HTTP exchange; a ``Session`` decides everything else.
///
/// A transport sends a prepared `URLRequest` and reports what comes back. It
/// does **not** follow redirects, answer authentication challenges, store or
/// send cookies, retry, or judge the outcome: the session does all of that,
/// the same way for every transport, so a request behaves identically on
/// ``URLSessionTransport`` and on another transport (the
/// `DeferredQueueAsyncHTTPClient` package's `AsyncHTTPClientTransport`).
///
/// ## Contract
///
/// For each call of ``startAttempt(_:events:)`` the transport reports, on
/// ``callbackQueue`` and one at a time:
///
/// 1. at most one ``HTTPTransportEvents/didReceive(response:)`` (the head of the
///    response — a 3xx or a 401 included, never followed or answered),
/// 2. then, when ``HTTPTransportAttempt/collectsBody`` is `false`, any number
///    of ``HTTPTransportEvents/didReceive(data:)`` with the body decoded from
///    its `Content-Encoding`, and any number of
///    ``HTTPTransportEvents/didSend(bytes:of:)`` while the request body goes out,
/// 3. then exactly one ``HTTPTransportEvents/didComplete(response:body:error:)``,
///    and nothing after it.
///
/// ``HTTPTransportTask/cancel()`` may be called from any thread at any moment,
/// any number of times; a cancelled attempt still completes (with an error).
///
/// The idle timeout is the request's `timeoutInterval`: an attempt that
/// receives nothing for that long completes with `URLError.timedOut`.
public protocol HTTPTransport: Sendable {
    /// The serial queue on which every event of every attempt is reported.
    ///
    /// The session runs validation and serialization on queues that target
    /// it, right after the event that completes a request.
    var callbackQueue: DispatchQueue { get }

    /// The `Accept-Encoding` value naming the content codings this transport
    /// decodes, sent by a ``Session`` unless the caller sets the header.
    var acceptEncoding: String? { get }

    /// Whether the transport can write a response body to a file itself
    /// (``HTTPTransportAttempt/downloadsToFile``), more cheaply than the
    /// session writing the chunks it reports. `false` by default.
    var supportsDownloadsToFile: Bool { get }

    /// Starts one attempt.
    ///
    /// - Parameters:
    ///   - attempt: What to send and how to hand back the body.
    ///   - events: Receives the attempt's events on ``callbackQueue``.
    /// - Returns: A handle that cancels the attempt.
    func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask

    /// Called once when the owning ``Session`` goes away, after its last
    /// request completed: release connections.
    func shutdown()
}

/// What a transport sends for one attempt.
public struct HTTPTransportAttempt: Sendable {
    /// The request as it goes on the wire (method, URL, headers, body), its
    /// `timeoutInterval` the idle timeout in seconds.
    public var request: URLRequest
    /// A file to stream as the request body, read as it is sent (never
    /// loaded whole); when set, `request.httpBody` is `nil`.
    public var bodyFile: URL?
    /// `true`: hand the whole body over in ``HTTPTransportEvents/didComplete(response:body:error:)``;
    /// `false`: report it chunk by chunk in ``HTTPTransportEvents/didReceive(data:)``.
    public var collectsBody: Bool
    /// The most decoded body bytes a collecting attempt may hold (`nil`: no
    /// limit). Once the body grows past it, the transport stops the transfer
    /// at once — not when it would have completed — and completes with
    /// ``HTTPError/responseTooLarge(limit:)``, so a huge or compressed body
    /// is never held whole. Streamed attempts leave the limit to the session.
    public var maximumBodySize: Int?
    /// `true` (only asked of a transport that ``HTTPTransport/supportsDownloadsToFile``):
    /// write the body to a new file, report ``HTTPTransportEvents/didDownload(bytes:of:)``
    /// as it grows and ``HTTPTransportEvents/didFinishDownloading(to:)`` before completing;
    /// the session owns the file from then on.
    public var downloadsToFile = false

    /// Creates an attempt.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - bodyFile: A file to stream as the body, if any.
    ///   - collectsBody: Whether the transport collects the body itself.
    ///   - maximumBodySize: The largest body a collecting attempt may hold (`nil`: no limit).
    public init(request: URLRequest, bodyFile: URL? = nil, collectsBody: Bool, maximumBodySize: Int? = nil) {
        self.request = request
        self.bodyFile = bodyFile
        self.collectsBody = collectsBody
        self.maximumBodySize = maximumBodySize
    }
}

/// Receives one attempt's events from an ``HTTPTransport``, on its
/// ``HTTPTransport/callbackQueue``, in the order the contract gives.
public protocol HTTPTransportEvents: Sendable {
    /// The response head arrived.
    func didReceive(response: HTTPURLResponse)
    /// A chunk of the decoded body arrived (streamed attempts only).
    func didReceive(data: Data)
    /// A chunk of the decoded body arrived (streamed attempts only);
    /// `handled` runs once the session is done with it — after every stream
    /// handler has run it, on whatever queue — so a transport with
    /// back-pressure can stop reading from the network meanwhile. The
    /// default calls ``didReceive(data:)``, then `handled`.
    func didReceive(data: Data, handled: @escaping @Sendable () -> Void)
    /// Request body bytes went out: the total so far and the expected total, if known.
    func didSend(bytes: Int64, of expected: Int64?)
    /// A downloading attempt's file grew: the decoded bytes so far and the expected total, if known.
    func didDownload(bytes: Int64, of expected: Int64?)
    /// A downloading attempt's body is complete in `file`, which now belongs to the session.
    func didFinishDownloading(to file: URL)
    /// The attempt ended: successfully (`error == nil`, a response arrived)
    /// or not. `body` is the whole body for a collecting attempt, `nil` otherwise.
    func didComplete(response: HTTPURLResponse?, body: Data?, error: (any Error)?)
}

/// A running attempt's handle.
public protocol HTTPTransportTask: Sendable {
    /// Cancels the attempt if it is still running; it then completes with an
    /// error. Safe from any thread, idempotent, a no-op once completed.
    func cancel()
}

extension HTTPTransport {
    public var supportsDownloadsToFile: Bool { false }
}

extension HTTPTransportEvents {
    public func didReceive(data: Data, handled: @escaping @Sendable () -> Void) {
        didReceive(data: data)
        handled()
    }
}
