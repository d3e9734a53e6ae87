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
/// failed with a transient transport error (Alamofire's set:
/// ``defaultRetryableURLErrorCodes``) or answered 408, 500, 502, 503 or 504.
/// Its labels and defaults are Alamofire's; the jitter, the cap and
/// `Retry-After` are this library's additions.
///
/// ## How long it waits
///
/// * A response with `Retry-After` (seconds or an HTTP-date) is retried when
///   the server asks. A wait longer than ``maximumDelay`` is not honoured by
///   retrying early: the attempt is delivered as it is, header included.
/// * Otherwise the wait before retry `n` (from 0) is exponential,
///   `min(maximumDelay, exponentialBackoffScale × exponentialBackoffBase^n)`, with ``jitter``
///   (by default *equal jitter*: a random wait between half that and all of
///   it), so clients that failed together do not retry together.
///
/// ```swift
/// let session = Session(retryPolicy: RetryPolicy(retryLimit: 3))
/// session.request(url, method: .post, interceptor: RetryPolicy(retryableHTTPMethods: [.post]))
/// ```
public struct RetryPolicy: Sendable {
    /// How the exponential backoff is randomised.
    public enum Jitter: Sendable, Equatable {
        /// No randomness: exactly `exponentialBackoffScale × exponentialBackoffBase^n`.
        case none
        /// Uniform between 0 and the exponential delay ("full jitter").
        case full
        /// Uniform between half the exponential delay and all of it
        /// ("equal jitter"): still backs off, still spreads clients out.
        case equal
    }

    /// The most retries after the first attempt.
    public var retryLimit: UInt
    /// The base of the exponential backoff (Alamofire's requires at least 2;
    /// here 0 and 1 are allowed: no backoff).
    public var exponentialBackoffBase: UInt
    /// The delay, in seconds, before the first retry (before jitter).
    public var exponentialBackoffScale: Double
    /// How the backoff is randomised (default ``Jitter/equal``).
    public var jitter: Jitter
    /// The longest wait before a retry, in seconds (default 60): the backoff
    /// is capped at it, and a response whose `Retry-After` asks for longer is
    /// not retried.
    public var maximumDelay: Double
    /// The methods that may be retried.
    public var retryableHTTPMethods: Set<HTTPMethod>
    /// The response status codes that cause a retry.
    public var retryableHTTPStatusCodes: Set<Int>
    /// The transport errors that cause a retry.
    public var retryableURLErrorCodes: Set<URLError.Code>
    /// Decides which failures are retried instead of ``retryableHTTPMethods``,
    /// ``retryableHTTPStatusCodes`` and ``retryableURLErrorCodes``; ``retryLimit``,
    /// the backoff and `Retry-After` still apply. `nil` (the default) uses the sets.
    public var shouldRetry: (@Sendable (Request, HTTPError) -> Bool)?

    /// A number in `0..<1` for the jitter; replaced by tests for determinism.
    var randomFraction: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// 2.
    public static let defaultRetryLimit: UInt = 2
    /// 2.
    public static let defaultExponentialBackoffBase: UInt = 2
    /// 0.5 seconds.
    public static let defaultExponentialBackoffScale: Double = 0.5
    /// The idempotent methods: DELETE, GET, HEAD, OPTIONS, PUT, TRACE.
    public static let defaultRetryableHTTPMethods: Set<HTTPMethod> = [.delete, .get, .head, .options, .put, .trace]
    /// 408, 500, 502, 503, 504.
    public static let defaultRetryableHTTPStatusCodes: Set<Int> = [408, 500, 502, 503, 504]
    /// Alamofire's set of transient failures: time-outs, lost or refused
    /// connections (a body cut short included), DNS, a bad server response,
    /// a failed TLS handshake or a certificate outside its dates (the clock
    /// may be fixed by the next attempt), and the platform's connectivity
    /// conditions (no network, cellular data off, a call in progress…).
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .backgroundSessionInUseByAnotherProcess, .backgroundSessionWasDisconnected, .badServerResponse,
        .callIsActive, .cannotConnectToHost, .cannotFindHost, .cannotLoadFromNetwork, .dataNotAllowed,
        .dnsLookupFailed, .downloadDecodingFailedMidStream, .downloadDecodingFailedToComplete,
        .internationalRoamingOff, .networkConnectionLost, .notConnectedToInternet, .secureConnectionFailed,
        .serverCertificateHasBadDate, .serverCertificateNotYetValid, .timedOut,
    ]

    /// Creates a policy; the labels up to `retryableURLErrorCodes` are Alamofire's.
    ///
    /// - Parameters:
    ///   - retryLimit: The most retries after the first attempt (default 2).
    ///   - exponentialBackoffBase: The base of the exponential backoff (default 2).
    ///   - exponentialBackoffScale: The first retry's delay in seconds, before jitter (default 0.5).
    ///   - retryableHTTPMethods: Methods that may be retried (default: the idempotent ones).
    ///   - retryableHTTPStatusCodes: Statuses that cause a retry.
    ///   - retryableURLErrorCodes: Transport errors that cause a retry.
    ///   - jitter: How the backoff is randomised (default ``Jitter/equal``).
    ///   - maximumDelay: The longest wait before a retry, in seconds (default 60).
    ///   - shouldRetry: Decides instead of the three sets above, when given.
    public init(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods,
        retryableHTTPStatusCodes: Set<Int> = RetryPolicy.defaultRetryableHTTPStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes,
        jitter: Jitter = .equal,
        maximumDelay: Double = 60,
        shouldRetry: (@Sendable (Request, HTTPError) -> Bool)? = nil
    ) {
        self.retryLimit = retryLimit
        self.exponentialBackoffBase = exponentialBackoffBase
        self.exponentialBackoffScale = exponentialBackoffScale
        self.retryableHTTPMethods = retryableHTTPMethods
        self.retryableHTTPStatusCodes = retryableHTTPStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.jitter = jitter
        self.maximumDelay = maximumDelay
        self.shouldRetry = shouldRetry
    }

    /// Whether the policy retries `request` after `error`, its retry limit
    /// aside (Alamofire's method): its method is retryable, and its status or
    /// transport error is — or ``shouldRetry`` says so, when set.
    ///
    /// - Parameters:
    ///   - request: The request whose latest attempt failed.
    ///   - error: The failure.
    /// - Returns: Whether the failure is one this policy retries.
    public func shouldRetry(request: Request, dueTo error: any Error) -> Bool {
        let failure = HTTPError(transportError: error)
        if let shouldRetry { return shouldRetry(request, failure) }
        return isRetryable(
            method: request.method, statusCode: failure.responseCode ?? request.responseHead?.statusCode, error: failure.urlError
        )
    }

    // MARK: - Decisions

    /// The delay before retrying `request` after it failed with `error`, or
    /// `nil` when the attempt that just ended must be the last. Everything the
    /// policy knows is used: ``shouldRetry``, `Retry-After` in the request's
    /// latest ``Request/response``, backoff and jitter.
    func delay(for request: Request, dueTo error: HTTPError) -> Double? {
        // The latest attempt's head (`nil` when it failed before one arrived).
        let response = request.responseHead
        if let shouldRetry {
            guard UInt(request.retryCount) < retryLimit, shouldRetry(request, error) else { return nil }
            return wait(beforeRetry: request.retryCount, response: response)
        }
        return delay(
            beforeRetry: request.retryCount, method: request.method,
            statusCode: error.responseCode ?? response?.statusCode, error: error.urlError, response: response
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
        beforeRetry retry: Int, method: HTTPMethod, statusCode: Int?, error: URLError?, response: ResponseHead?
    ) -> Double? {
        guard retry >= 0, UInt(retry) < retryLimit, isRetryable(method: method, statusCode: statusCode, error: error) else {
            return nil
        }
        return wait(beforeRetry: retry, response: response)
    }

    /// Whether the sets say a failure of `method`, with `statusCode` or `error`,
    /// is retried: the status first, then the transport error, as in Alamofire
    /// (a retryable status whose body then failed is retried).
    private func isRetryable(method: HTTPMethod, statusCode: Int?, error: URLError?) -> Bool {
        guard retryableHTTPMethods.contains(method) else { return false }
        if let statusCode, retryableHTTPStatusCodes.contains(statusCode) { return true }
        guard let error else { return false }
        return retryableURLErrorCodes.contains(error.code)
    }

    /// ``delay(beforeRetry:method:statusCode:error:response:)`` without a
    /// response (so without `Retry-After`).
    func delay(beforeRetry retry: Int, method: HTTPMethod, statusCode: Int?, error: URLError?) -> Double? {
        delay(beforeRetry: retry, method: method, statusCode: statusCode, error: error, response: nil)
    }

    /// The wait before a retry that was decided: what `Retry-After` asks
    /// (`nil` when that is over ``maximumDelay``), else the jittered backoff.
    func wait(beforeRetry retry: Int, response: ResponseHead?) -> Double? {
        let cap = maximumDelay.isNaN ? 0 : max(0, maximumDelay)
        if let asked = RetryAfter.delay(in: response) {
            return asked <= cap ? asked : nil
        }
        let exponential = exponentialBackoffScale * pow(Double(exponentialBackoffBase), Double(max(0, retry)))
        let nominal = exponential.isNaN ? 0 : min(cap, max(0, exponential))
        let fraction = min(max(randomFraction(), 0), 1)
        switch jitter {
        case .none: return nominal
        case .full: return nominal * fraction
        case .equal: return nominal / 2 + nominal / 2 * fraction
        }
    }
}
