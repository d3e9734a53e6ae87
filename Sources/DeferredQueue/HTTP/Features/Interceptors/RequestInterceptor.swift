import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An adapter and a retrier in one; by default it passes every request
/// through unchanged and retries nothing.
///
/// Implement either shape of each method (see ``RequestAdapter`` and
/// ``RequestRetrier``). One difference from the plain protocols: an
/// interceptor that implements only the completion handlers keeps these
/// `async` defaults (pass through, do not retry), which the session never
/// calls; call the completion handlers, as the session does.
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

    public func adapt(
        _ urlRequest: URLRequest, using state: RequestAdapterState,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    ) {
        Self.adapt(urlRequest, with: adapters[...], session: state.session, state: state, completion: CompletionOnce(completion))
    }

    public func adapt(
        _ urlRequest: URLRequest, for session: Session,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    ) {
        Self.adapt(urlRequest, with: adapters[...], session: session, state: nil, completion: CompletionOnce(completion))
    }

    // The async forms bridge to the completion handlers, so every child is
    // called in the shape it implements.
    public func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        try await withCheckedThrowingContinuation { continuation in
            let once = ResumeOnce(continuation)
            adapt(urlRequest, for: session) { once.resume(with: $0) }
        }
    }

    public func retry(
        _ request: Request, for session: Session, dueTo error: any Error,
        completion: @escaping @Sendable (RetryResult) -> Void
    ) {
        Self.retry(request, with: retriers[...], session: session, error: error, completion: CompletionOnce(completion))
    }

    public func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            retry(request, for: session, dueTo: error as any Error) { once.resume(with: .success($0)) }
        }
    }

    /// Runs `adapters` in order, each on the previous one's request; the
    /// first error ends it. With a `state`, each is asked with it (as the
    /// session does); without, in the `for:` shape.
    private static func adapt(
        _ urlRequest: URLRequest, with adapters: ArraySlice<any RequestAdapter>, session: Session,
        state: RequestAdapterState?, completion: CompletionOnce<Result<URLRequest, any Error>>
    ) {
        guard let adapter = adapters.first else { return completion(.success(urlRequest)) }
        let step = CompletionOnce<Result<URLRequest, any Error>> { result in
            switch result {
            case .success(let adapted):
                adapt(adapted, with: adapters.dropFirst(), session: session, state: state, completion: completion)
            case .failure: completion(result)
            }
        }
        if let state {
            adapter.adapt(urlRequest, using: state) { step($0) }
        } else {
            adapter.adapt(urlRequest, for: session) { step($0) }
        }
    }

    /// Asks `retriers` in order until one decides something other than `.doNotRetry`.
    private static func retry(
        _ request: Request, with retriers: ArraySlice<any RequestRetrier>, session: Session, error: any Error,
        completion: CompletionOnce<RetryResult>
    ) {
        guard let retrier = retriers.first else { return completion(.doNotRetry) }
        let step = CompletionOnce<RetryResult> { result in
            guard case .doNotRetry = result else { return completion(result) }
            retry(request, with: retriers.dropFirst(), session: session, error: error, completion: completion)
        }
        retrier.retry(request, for: session, dueTo: error) { step($0) }
    }
}
