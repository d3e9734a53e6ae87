import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adapts a request with Alamofire's completion-handler closure shape:
/// `(request, session, completion)`.
public typealias AdaptHandler = @Sendable (
    _ request: URLRequest, _ session: Session, _ completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
) -> Void

/// Decides a retry with Alamofire's completion-handler closure shape:
/// `(request, session, error, completion)`.
public typealias RetryHandler = @Sendable (
    _ request: Request, _ session: Session, _ error: any Error, _ completion: @escaping @Sendable (RetryResult) -> Void
) -> Void

/// A ``RequestAdapter`` made of a closure, as Alamofire's `Adapter`.
///
/// ```swift
/// let adapter = Adapter { request, session, completion in
///     var request = request
///     request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
///     completion(.success(request))
/// }
/// ```
///
/// The closure must call `completion` once; later calls are ignored.
public struct Adapter: RequestInterceptor {
    private let adaptHandler: AdaptHandler

    /// Creates an adapter from `adaptHandler`.
    ///
    /// - Parameter adaptHandler: Adapts each request, calling its completion once.
    public init(_ adaptHandler: @escaping AdaptHandler) {
        self.adaptHandler = adaptHandler
    }

    public func adapt(
        _ urlRequest: URLRequest, for session: Session,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    ) {
        adaptHandler(urlRequest, session, completion)
    }

    // Stated, not defaulted: `RequestInterceptor`'s default passes the request through.
    public func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        try await withCheckedThrowingContinuation { continuation in
            let once = ResumeOnce(continuation)
            adaptHandler(urlRequest, session) { once.resume(with: $0) }
        }
    }

    // An adapter does not retry: decided at once, with no task.
    public func retry(
        _ request: Request, for session: Session, dueTo error: any Error,
        completion: @escaping @Sendable (RetryResult) -> Void
    ) {
        completion(.doNotRetry)
    }
}

/// A ``RequestRetrier`` made of a closure, as Alamofire's `Retrier`.
///
/// The closure must call `completion` once; later calls are ignored.
public struct Retrier: RequestInterceptor {
    private let retryHandler: RetryHandler

    /// Creates a retrier from `retryHandler`.
    ///
    /// - Parameter retryHandler: Decides each failed attempt, calling its completion once.
    public init(_ retryHandler: @escaping RetryHandler) {
        self.retryHandler = retryHandler
    }

    // A retrier does not adapt: passed through at once, with no task.
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
        retryHandler(request, session, error, completion)
    }

    // Stated, not defaulted: `RequestInterceptor`'s default does not retry.
    public func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            retryHandler(request, session, error) { once.resume(with: .success($0)) }
        }
    }
}
