import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

    /// Whether the request is retried: ``retry`` or ``retryWithDelay(_:)``.
    public var retryRequired: Bool {
        switch self {
        case .retry, .retryWithDelay: true
        case .doNotRetry, .doNotRetryWithError: false
        }
    }

    /// The seconds ``retryWithDelay(_:)`` waits; `nil` for every other decision.
    public var delay: TimeInterval? {
        guard case .retryWithDelay(let delay) = self else { return nil }
        return delay
    }

    /// The error ``doNotRetryWithError(_:)`` fails with; `nil` for every other decision.
    public var error: (any Error)? {
        guard case .doNotRetryWithError(let error) = self else { return nil }
        return error
    }
}

/// Decides whether a failed attempt is retried.
///
/// A retrier is asked when an attempt fails — a transport error, or a
/// response with a status of 400 or more — *before any handler runs*, so
/// handlers only ever see the final attempt. The session's retriers are asked
/// first, then the request's (Alamofire's order), then the session's ``RetryPolicy``.
///
/// Implement **one** of the two shapes: `async` (below), or Alamofire's
/// completion handler, ``retry(_:for:dueTo:completion:)``. Each defaults to
/// the other, so a retrier written for Alamofire compiles unchanged; one that
/// implements neither fails the request with an error naming it. The
/// session calls the completion handler on its queue (the transport's
/// callback queue): a completion-handler retrier runs there, with no task
/// created, and an `async` one in a task.
///
/// The request waits for the decision as long as it takes (its `timeout`
/// times transfers, not retriers): a retrier that never calls its completion
/// leaves the request waiting until ``Request/cancel()`` or the session's
/// ``Session/resourceTimeout`` ends it, as in Alamofire.
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

    /// Calls `completion` once with the decision about a failed attempt
    /// (Alamofire's shape). `error` is always an ``HTTPError``.
    ///
    /// - Parameters:
    ///   - request: The request; its ``Request/retryCount`` and
    ///     ``Request/response`` describe the attempt that failed.
    ///   - session: The session running it.
    ///   - error: The failure, an ``HTTPError``.
    ///   - completion: Takes the decision; later calls are ignored.
    func retry(
        _ request: Request, for session: Session, dueTo error: any Error,
        completion: @escaping @Sendable (RetryResult) -> Void
    )
}

extension RequestRetrier {
    public func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        if ShapeBridge.isBridging(Self.self) {
            return .doNotRetryWithError(UnimplementedRequirement(type: Self.self, requirement: "retry(_:for:dueTo:)"))
        }
        return await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            retry(request, for: session, dueTo: error as any Error) { once.resume(with: .success($0)) }
        }
    }

    public func retry(
        _ request: Request, for session: Session, dueTo error: any Error,
        completion: @escaping @Sendable (RetryResult) -> Void
    ) {
        let failure = HTTPError(transportError: error)
        Task {
            completion(await ShapeBridge.$bridging.withValue(ObjectIdentifier(Self.self)) {
                await retry(request, for: session, dueTo: failure)
            })
        }
    }
}
