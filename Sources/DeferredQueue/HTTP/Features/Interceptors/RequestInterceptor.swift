import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Changes a request before each attempt is sent: adds a token, signs it,
/// rewrites it.
///
/// Adapters run for every attempt — the first, each retry, each redirect and
/// authentication round trip — on the request as the session built it for
/// that attempt: the session's adapters first, then the request's. A
/// redirect hop to another origin (scheme, host or port) is the exception:
/// it is not adapted, so a token an adapter adds stays with its origin.
public protocol RequestAdapter: Sendable {
    /// Returns the request to send.
    ///
    /// - Parameters:
    ///   - urlRequest: The request about to be sent.
    ///   - session: The session sending it.
    /// - Returns: The request to send instead.
    /// - Throws: Any error, which stops the request: every handler receives
    ///   ``HTTPError/requestAdaptationFailed(error:)`` and nothing is sent.
    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest
}

/// What a ``RequestRetrier`` decided.
public enum RetryResult: Sendable {
    /// Retry now.
    case retry
    /// Retry after this many seconds (no thread waits meanwhile).
    case retryWithDelay(Double)
    /// Do not retry; ask the next retrier (and finally the session's ``RetryPolicy``).
    case doNotRetry
    /// Do not retry, and fail with this error
    /// (as ``HTTPError/requestRetryFailed(retryError:originalError:)``).
    case doNotRetryWithError(any Error)
}

/// Decides whether a failed attempt is retried.
///
/// A retrier is asked when an attempt fails — a transport error, or a
/// response with a status of 400 or more — *before any handler runs*, so
/// handlers only ever see the final attempt. The request's retriers are asked
/// first, then the session's, then the session's ``RetryPolicy``.
public protocol RequestRetrier: Sendable {
    /// Decides about a failed attempt.
    ///
    /// - Parameters:
    ///   - request: The request; its ``Request/retryCount`` and
    ///     ``Request/response`` describe the attempt that failed.
    ///   - session: The session running it.
    ///   - error: The failure: a transport error, or
    ///     ``HTTPError/ValidationFailureReason/unacceptableStatusCode(code:)``.
    /// - Returns: Whether and when to retry.
    func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult
}

/// An adapter and a retrier in one; both methods do nothing by default.
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    public func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        urlRequest
    }

    public func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        .doNotRetry
    }
}

/// Combines adapters and retriers into one ``RequestInterceptor``.
///
/// ```swift
/// let session = Session(interceptor: Interceptor(adapters: [TokenAdapter()], retriers: [RetryPolicy()]))
/// ```
public struct Interceptor: RequestInterceptor {
    /// Run in order, each on the previous one's result.
    public let adapters: [any RequestAdapter]
    /// Asked in order until one decides something other than `.doNotRetry`.
    public let retriers: [any RequestRetrier]

    /// Creates an interceptor.
    ///
    /// - Parameters:
    ///   - adapters: The adapters, in the order they run.
    ///   - retriers: The retriers, in the order they are asked.
    ///   - interceptors: Each adapts after `adapters` and is asked after
    ///     `retriers`, in order.
    public init(
        adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [], interceptors: [any RequestInterceptor] = []
    ) {
        self.adapters = adapters + interceptors.map { $0 as any RequestAdapter }
        self.retriers = retriers + interceptors.map { $0 as any RequestRetrier }
    }

    /// Creates an interceptor of one adapter and one retrier.
    ///
    /// - Parameters:
    ///   - adapter: Adapts every request.
    ///   - retrier: Decides every failed attempt.
    public init(adapter: any RequestAdapter, retrier: any RequestRetrier) {
        self.init(adapters: [adapter], retriers: [retrier])
    }

    /// Creates an interceptor of two closures, in Alamofire's completion-handler shape.
    ///
    /// - Parameters:
    ///   - adaptHandler: Adapts every request (see ``Adapter``).
    ///   - retryHandler: Decides every failed attempt (see ``Retrier``).
    public init(adaptHandler: @escaping AdaptHandler, retryHandler: @escaping RetryHandler) {
        self.init(adapter: Adapter(adaptHandler), retrier: Retrier(retryHandler))
    }

    public func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        var request = urlRequest
        for adapter in adapters {
            request = try await adapter.adapt(request, for: session)
        }
        return request
    }

    public func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        for retrier in retriers {
            let result = await retrier.retry(request, for: session, dueTo: error)
            if case .doNotRetry = result { continue }
            return result
        }
        return .doNotRetry
    }
}
