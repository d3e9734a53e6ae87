import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a transport sends for one attempt, with every limit and timeout
/// already decided by the ``Session``: a transport applies them as they are.
public struct HTTPTransportAttempt: Sendable {
    /// The request as it goes on the wire: method, URL, headers, body.
    public var request: URLRequest {
        didSet { syntaxChecked = false }
    }
    /// The session checked ``request``'s syntax for this attempt (assigning
    /// another request clears it).
    var syntaxChecked = false
    /// A file to stream as the request body, read as it is sent (never
    /// loaded whole); when set, `request.httpBody` is `nil`.
    public var bodyFile: URL?
    /// `true`: collect the body in an ``HTTPBodyCollector`` and hand it over
    /// in ``HTTPTransportEvents/didComplete(body:error:)``; `false`: report
    /// it chunk by chunk in ``HTTPTransportEvents/didReceive(data:handled:)``.
    public var collectsBody: Bool
    /// The most decoded body bytes a collecting attempt may hold (see
    /// ``makeBodyCollector(expectedLength:)``). Streamed attempts leave limits to the session.
    public var maximumBodySize: Int
    /// `true` (only asked of a transport that ``HTTPTransport/supportsDownloadsToFile``):
    /// write the body to a new file, report ``HTTPTransportEvents/didDownload(bytes:of:)``
    /// as it grows and ``HTTPTransportEvents/didFinishDownloading(to:)`` before completing;
    /// the session owns the file from then on.
    public var downloadsToFile = false
    /// The evaluator of the server's TLS credentials for an `https` URL
    /// whose host the session's ``ServerTrustManager`` evaluates (only set
    /// for a transport that ``HTTPTransport/supportsServerTrustEvaluation``).
    /// The transport runs it on every connection it opens for the attempt,
    /// after the handshake and before sending anything, and fails the attempt
    /// with the evaluator's ``HTTPError`` when it throws.
    public var serverTrustEvaluator: (any ServerTrustEvaluating)?
    /// Seconds without any byte moving after which the attempt fails with
    /// `URLError.timedOut`: positive and at most ``maximumIdleTimeout``.
    public var idleTimeout: Double

    /// The longest idle timeout an attempt carries: a year. (Foundation on
    /// Linux traps converting a much larger one to milliseconds.)
    public static let maximumIdleTimeout: Double = 365 * 86_400

    /// Creates an attempt.
    ///
    /// - Parameters:
    ///   - request: The request to send. Its `timeoutInterval` becomes the
    ///     ``idleTimeout``: a zero, negative or NaN one is
    ///     ``Session/defaultTimeout``, a larger one than ``maximumIdleTimeout``
    ///     is cut to it.
    ///   - bodyFile: A file to stream as the body, if any.
    ///   - collectsBody: Whether the transport collects the body itself.
    ///   - maximumBodySize: The largest body a collecting attempt may hold (`nil`: no limit).
    public init(request: URLRequest, bodyFile: URL? = nil, collectsBody: Bool, maximumBodySize: Int? = nil) {
        self.request = request
        self.bodyFile = bodyFile
        self.collectsBody = collectsBody
        self.maximumBodySize = max(0, maximumBodySize ?? .max)
        idleTimeout = Self.idleTimeout(request.timeoutInterval)
    }

    /// Why ``request`` may not be sent as it is, or `nil` when it may.
    ///
    /// A URL whose port is beyond 65535 (``HTTPError/invalidURL(_:)``:
    /// AsyncHTTPClient traps on one; another scheme or no host is the
    /// transport's to refuse, as `URLError.unsupportedURL`), a method or
    /// header field name that is not an RFC 9110 token, or a
    /// field value holding a control character (CR, LF, NUL…) or DEL, which
    /// would let the request write lines of its own choosing into the head.
    /// A ``Session`` refuses such a request before it reaches any transport;
    /// a transport fails an attempt it was handed directly with this error,
    /// on its callback queue and before sending a byte (both of this
    /// project's transports do).
    public var requestSyntaxViolation: HTTPError? {
        guard !syntaxChecked else { return nil }
        if let url = request.url, !url.hasSendablePort { return .invalidURL(url.absoluteString) }
        return RequestSyntax.violation(method: request.httpMethod ?? "GET", fields: request.allHTTPHeaderFields ?? [:])
    }

    /// A collector for this attempt's body, holding at most ``maximumBodySize`` bytes.
    ///
    /// - Parameter expectedLength: The body's length, when the head announces it
    ///   and it is not encoded: storage for it is reserved up front.
    public func makeBodyCollector(expectedLength: Int? = nil) -> HTTPBodyCollector {
        HTTPBodyCollector(limit: maximumBodySize, expectedLength: expectedLength)
    }

    /// The error of an attempt whose ``bodyFile`` changed length while it
    /// was sent (`announced`: the `Content-Length` sent, the file's length
    /// when the attempt started): a transport stops there, neither sending
    /// bytes past the announced length (the server would read them as the
    /// next request on the connection) nor waiting for bytes that are gone.
    public static func bodyFileChangedLength(_ file: URL, announced: Int64, url: URL?) -> URLError {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: "The file \(file.path) changed length while it was uploaded "
                + "(\(announced) bytes were announced); upload a file nothing writes to meanwhile.",
            NSFilePathErrorKey: file.path,
        ]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.requestBodyStreamExhausted, userInfo: userInfo)
    }

    /// `seconds` as an idle timeout every transport can apply.
    static func idleTimeout(_ seconds: Double) -> Double {
        guard !seconds.isNaN, seconds > 0 else { return Session.defaultTimeout }
        return min(seconds, maximumIdleTimeout)
    }
}
