import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how a ``Session`` retries a failed request.
///
/// The session consults the policy when a task completes, *before* the
/// request's queue is resumed: handlers only ever see the final attempt.
/// By default only idempotent methods are retried (a `POST` is never sent
/// twice unless you say so), with exponential backoff:
/// `delay(n) = backoffScale × backoffBase^n` seconds before retry `n` (from 0).
///
/// ```swift
/// let session = Session(retryPolicy: RetryPolicy(retryLimit: 3))
/// ```
public struct RetryPolicy: Sendable {
    /// The most retries after the first attempt.
    public var retryLimit: Int
    /// The base of the exponential backoff.
    public var backoffBase: Double
    /// The delay, in seconds, before the first retry.
    public var backoffScale: Double
    /// The methods that may be retried.
    public var retryableMethods: Set<HTTPMethod>
    /// The response status codes that cause a retry.
    public var retryableStatusCodes: Set<Int>
    /// The transport errors that cause a retry.
    public var retryableURLErrorCodes: Set<URLError.Code>

    /// The idempotent methods: GET, HEAD, PUT, DELETE, OPTIONS, TRACE.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]
    /// 408, 500, 502, 503, 504.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 500, 502, 503, 504]
    /// Transient transport failures: time-outs, lost or refused connections, DNS.
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost,
        .dnsLookupFailed, .notConnectedToInternet,
    ]

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - retryLimit: The most retries after the first attempt (default 2).
    ///   - backoffBase: The base of the exponential backoff (default 2).
    ///   - backoffScale: The first retry's delay in seconds (default 0.5).
    ///   - retryableMethods: Methods that may be retried (default: idempotent ones).
    ///   - retryableStatusCodes: Statuses that cause a retry.
    ///   - retryableURLErrorCodes: Transport errors that cause a retry.
    public init(
        retryLimit: Int = 2,
        backoffBase: Double = 2,
        backoffScale: Double = 0.5,
        retryableMethods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes
    ) {
        self.retryLimit = retryLimit
        self.backoffBase = backoffBase
        self.backoffScale = backoffScale
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
    }

    /// The delay before retry number `retry` (0 for the first), or `nil` when
    /// the attempt that just ended must be the last.
    ///
    /// - Parameters:
    ///   - retry: How many retries were made already.
    ///   - method: The request's method.
    ///   - statusCode: The response status, if a response arrived.
    ///   - error: The transport error, if the task failed.
    func delay(beforeRetry retry: Int, method: HTTPMethod, statusCode: Int?, error: URLError?) -> Double? {
        guard retry < retryLimit, retryableMethods.contains(method) else { return nil }
        if let error {
            guard retryableURLErrorCodes.contains(error.code) else { return nil }
        } else {
            guard let statusCode, retryableStatusCodes.contains(statusCode) else { return nil }
        }
        let delay = backoffScale * pow(backoffBase, Double(retry))
        return delay.isFinite ? max(0, delay) : nil
    }
}
