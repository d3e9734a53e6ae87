import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how failed requests are retried.
///
/// Give it to a session (`Session(retryPolicy:)`), where it is consulted
/// after every retrier, or to one request as its retrier
/// (`request(url, interceptor: RetryPolicy())`, or inside
/// `Interceptor(retriers:)`). Either way it decides *before* any handler
/// runs: handlers only ever see the final attempt.
///
/// By default it retries, at most ``retryLimit`` times, an attempt of an
/// idempotent method (a `POST` is never sent twice unless you say so) that
/// failed with a transient transport error — a time-out, a lost or refused
/// connection, a body cut short — or answered 408, 500, 502, 503 or 504.
///
/// ## How long it waits
///
/// * A response with `Retry-After` (seconds or an HTTP-date) is retried when
///   the server asks. A wait longer than ``maximumDelay`` is not honoured by
///   retrying early: the attempt is delivered as it is, header included.
/// * Otherwise the wait before retry `n` (from 0) is exponential,
///   `min(maximumDelay, backoffScale × backoffBase^n)`, with ``jitter``
///   (by default *equal jitter*: a random wait between half that and all of
///   it), so clients that failed together do not retry together.
///
/// ```swift
/// let session = Session(retryPolicy: RetryPolicy(retryLimit: 3))
/// session.request(url, method: .post, interceptor: RetryPolicy(retryableMethods: [.post]))
/// ```
public struct RetryPolicy: Sendable {
    /// How the exponential backoff is randomised.
    public enum Jitter: Sendable, Equatable {
        /// No randomness: exactly `backoffScale × backoffBase^n`.
        case none
        /// Uniform between 0 and the exponential delay ("full jitter").
        case full
        /// Uniform between half the exponential delay and all of it
        /// ("equal jitter"): still backs off, still spreads clients out.
        case equal
    }

    /// The most retries after the first attempt.
    public var retryLimit: Int
    /// The base of the exponential backoff.
    public var backoffBase: Double
    /// The delay, in seconds, before the first retry (before jitter).
    public var backoffScale: Double
    /// How the backoff is randomised (default ``Jitter/equal``).
    public var jitter: Jitter
    /// The longest wait before a retry, in seconds (default 60): the backoff
    /// is capped at it, and a response whose `Retry-After` asks for longer is
    /// not retried.
    public var maximumDelay: Double
    /// The methods that may be retried.
    public var retryableMethods: Set<HTTPMethod>
    /// The response status codes that cause a retry.
    public var retryableStatusCodes: Set<Int>
    /// The transport errors that cause a retry.
    public var retryableURLErrorCodes: Set<URLError.Code>
    /// Decides which failures are retried instead of ``retryableMethods``,
    /// ``retryableStatusCodes`` and ``retryableURLErrorCodes``; ``retryLimit``,
    /// the backoff and `Retry-After` still apply. `nil` (the default) uses the sets.
    public var shouldRetry: (@Sendable (Request, HTTPError) -> Bool)?

    /// A number in `0..<1` for the jitter; replaced by tests for determinism.
    var randomFraction: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// The idempotent methods: GET, HEAD, PUT, DELETE, OPTIONS, TRACE.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]
    /// 408, 500, 502, 503, 504.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 500, 502, 503, 504]
    /// Transient transport failures: time-outs, lost connections (including a
    /// body cut short), refused connections, DNS.
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost,
        .dnsLookupFailed, .notConnectedToInternet,
    ]

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - retryLimit: The most retries after the first attempt (default 2).
    ///   - backoffBase: The base of the exponential backoff (default 2).
    ///   - backoffScale: The first retry's delay in seconds, before jitter (default 0.5).
    ///   - jitter: How the backoff is randomised (default ``Jitter/equal``).
    ///   - maximumDelay: The longest wait before a retry, in seconds (default 60).
    ///   - retryableMethods: Methods that may be retried (default: idempotent ones).
    ///   - retryableStatusCodes: Statuses that cause a retry.
    ///   - retryableURLErrorCodes: Transport errors that cause a retry.
    ///   - shouldRetry: Decides instead of the three sets above, when given.
    public init(
        retryLimit: Int = 2,
        backoffBase: Double = 2,
        backoffScale: Double = 0.5,
        jitter: Jitter = .equal,
        maximumDelay: Double = 60,
        retryableMethods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes,
        shouldRetry: (@Sendable (Request, HTTPError) -> Bool)? = nil
    ) {
        self.retryLimit = retryLimit
        self.backoffBase = backoffBase
        self.backoffScale = backoffScale
        self.jitter = jitter
        self.maximumDelay = maximumDelay
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.shouldRetry = shouldRetry
    }

    // MARK: - Decisions

    /// The delay before retrying `request` after it failed with `error`, or
    /// `nil` when the attempt that just ended must be the last. Everything the
    /// policy knows is used: ``shouldRetry``, `Retry-After` in the request's
    /// latest ``Request/response``, backoff and jitter.
    func delay(for request: Request, dueTo error: HTTPError) -> Double? {
        let response = request.response
        let urlError = error.urlError
        let statusCode = urlError == nil ? error.responseCode ?? response?.statusCode : nil
        if let shouldRetry {
            guard request.retryCount < retryLimit, shouldRetry(request, error) else { return nil }
            return wait(beforeRetry: request.retryCount, response: response)
        }
        return delay(
            beforeRetry: request.retryCount, method: request.method,
            statusCode: statusCode, error: urlError, response: urlError == nil ? response : nil
        )
    }

    /// The delay before retry number `retry` (0 for the first), or `nil` when
    /// the attempt that just ended must be the last.
    ///
    /// - Parameters:
    ///   - retry: How many retries were made already.
    ///   - method: The request's method.
    ///   - statusCode: The response status, if a response arrived.
    ///   - error: The transport error, if the task failed.
    ///   - response: The response, whose `Retry-After` is honoured.
    func delay(
        beforeRetry retry: Int, method: HTTPMethod, statusCode: Int?, error: URLError?, response: HTTPURLResponse?
    ) -> Double? {
        guard retry < retryLimit, retryableMethods.contains(method) else { return nil }
        if let error {
            guard retryableURLErrorCodes.contains(error.code) else { return nil }
        } else {
            guard let statusCode, retryableStatusCodes.contains(statusCode) else { return nil }
        }
        return wait(beforeRetry: retry, response: response)
    }

    /// ``delay(beforeRetry:method:statusCode:error:response:)`` without a
    /// response (so without `Retry-After`).
    func delay(beforeRetry retry: Int, method: HTTPMethod, statusCode: Int?, error: URLError?) -> Double? {
        delay(beforeRetry: retry, method: method, statusCode: statusCode, error: error, response: nil)
    }

    /// The wait before a retry that was decided: what `Retry-After` asks
    /// (`nil` when that is over ``maximumDelay``), else the jittered backoff.
    func wait(beforeRetry retry: Int, response: HTTPURLResponse?) -> Double? {
        let cap = maximumDelay.isNaN ? 0 : max(0, maximumDelay)
        if let asked = RetryAfter.delay(in: response) {
            return asked <= cap ? asked : nil
        }
        let exponential = backoffScale * pow(backoffBase, Double(max(0, retry)))
        let nominal = exponential.isNaN ? 0 : min(cap, max(0, exponential))
        let fraction = min(max(randomFraction(), 0), 1)
        switch jitter {
        case .none: return nominal
        case .full: return nominal * fraction
        case .equal: return nominal / 2 + nominal / 2 * fraction
        }
    }
}
