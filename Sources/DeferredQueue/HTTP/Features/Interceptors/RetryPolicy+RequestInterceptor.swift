import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A policy is a request interceptor that only retries (its adapter changes
/// nothing), so it can be passed as a request's `interceptor:`.
extension RetryPolicy: RequestInterceptor {
    /// Retries `request` after the policy's delay when the policy allows it.
    ///
    /// This is what a policy does as one request's retrier (`interceptor:`)
    /// or inside `Interceptor(retriers:)`; as the session's ``Session/retryPolicy``
    /// it decides the same way.
    ///
    /// - Parameters:
    ///   - request: The failed request: its method, ``Request/retryCount``
    ///     and latest ``Request/response`` (for `Retry-After`) are read.
    ///   - session: The session running it.
    ///   - error: The failure: a transport error or an unacceptable status.
    /// - Returns: `.retryWithDelay(seconds)`, or `.doNotRetry` so the next
    ///   retrier (and the session's policy) may decide.
    public func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        decision(for: request, dueTo: error)
    }

    // Both shapes stated: the session calls the completion handlers, which
    // decide at once, with no task.
    public func retry(
        _ request: Request, for session: Session, dueTo error: any Error,
        completion: @escaping @Sendable (RetryResult) -> Void
    ) {
        completion(decision(for: request, dueTo: HTTPError(transportError: error)))
    }

    public func adapt(
        _ urlRequest: URLRequest, for session: Session,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    ) {
        completion(.success(urlRequest))
    }

    private func decision(for request: Request, dueTo error: HTTPError) -> RetryResult {
        guard let seconds = delay(for: request, dueTo: error) else { return .doNotRetry }
        return .retryWithDelay(seconds)
    }
}
