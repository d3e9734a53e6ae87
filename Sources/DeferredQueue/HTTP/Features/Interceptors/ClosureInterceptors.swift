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

    public func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        try await withCheckedThrowingContinuation { continuation in
            let once = ResumeOnce(continuation)
            adaptHandler(urlRequest, session) { once.resume(with: $0) }
        }
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

    public func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            retryHandler(request, session, error) { once.resume(with: .success($0)) }
        }
    }
}

/// A continuation resumed by the first of several calls: a closure that
/// calls its completion twice must not crash the process.
private final class ResumeOnce<Value: Sendable, Failure: Error>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Failure>?>

    init(_ continuation: CheckedContinuation<Value, Failure>) {
        self.continuation = Mutex(continuation)
    }

    func resume(with result: sending Result<Value, Failure>) {
        continuation.withLock(owner: self) { $0.take() }?.resume(with: result)
    }
}
