import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``RetryPolicy`` that retries only a lost connection
/// (`URLError.networkConnectionLost`), as Alamofire's.
///
/// Alamofire's is a subclass; here it wraps a ``RetryPolicy`` (``policy``),
/// which is also what to give `Session(retryPolicy:)`.
///
/// ```swift
/// import DeferredQueue
///
/// let session = Session(interceptor: ConnectionLostRetryPolicy(retryLimit: 3))
/// ```
public struct ConnectionLostRetryPolicy: RequestInterceptor {
    /// The policy: no retryable status, `networkConnectionLost` the only retryable error.
    public var policy: RetryPolicy

    /// Creates the policy.
    ///
    /// - Parameters:
    ///   - retryLimit: The most retries after the first attempt (default 2).
    ///   - exponentialBackoffBase: The base of the exponential backoff (default 2).
    ///   - exponentialBackoffScale: The first retry's delay in seconds, before jitter (default 0.5).
    ///   - retryableHTTPMethods: Methods that may be retried (default: the idempotent ones).
    public init(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods
    ) {
        policy = RetryPolicy(
            retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
            exponentialBackoffScale: exponentialBackoffScale, retryableHTTPMethods: retryableHTTPMethods,
            retryableHTTPStatusCodes: [], retryableURLErrorCodes: [.networkConnectionLost]
        )
    }

    // Alamofire's accessors, read from `policy`.

    /// The most retries after the first attempt.
    public var retryLimit: UInt { policy.retryLimit }
    /// The base of the exponential backoff.
    public var exponentialBackoffBase: UInt { policy.exponentialBackoffBase }
    /// The first retry's delay in seconds, before jitter.
    public var exponentialBackoffScale: Double { policy.exponentialBackoffScale }
    /// Methods that may be retried.
    public var retryableHTTPMethods: Set<HTTPMethod> { policy.retryableHTTPMethods }
    /// Statuses that are retried: none.
    public var retryableHTTPStatusCodes: Set<Int> { policy.retryableHTTPStatusCodes }
    /// Errors that are retried: `networkConnectionLost`.
    public var retryableURLErrorCodes: Set<URLError.Code> { policy.retryableURLErrorCodes }

    public func adapt(
        _ urlRequest: URLRequest, for session: Session,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    ) {
        completion(.success(urlRequest))
    }

    public func retry(
        _ request: Request, for session: Session, dueTo error: any Error,
        completion: @escaping @Sendable (RetryResult) -> Void
    ) {
        policy.retry(request, for: session, dueTo: error, completion: completion)
    }

    public func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        await policy.retry(request, for: session, dueTo: error)
    }
}
