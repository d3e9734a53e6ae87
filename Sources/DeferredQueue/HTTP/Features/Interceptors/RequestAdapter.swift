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
///
/// Implement **one** of the two shapes: `async` (below), or Alamofire's
/// completion handler, ``adapt(_:for:completion:)``. Each defaults to the
/// other, so an adapter written for Alamofire compiles unchanged; one that
/// implements neither fails every request it adapts with an error naming
/// it. The session calls ``adapt(_:using:completion:)`` on its queue (the
/// transport's callback queue): a completion-handler adapter runs there,
/// with no task created, and an `async` one in a task.
///
/// The request waits for the adapter as long as it takes: its `timeout`
/// times the transfer, as `URLRequest.timeoutInterval` does, not the
/// adapter. An adapter that never calls its completion (or an `async` one
/// that never returns) leaves the request waiting until ``Request/cancel()``
/// or the session's ``Session/resourceTimeout`` ends it, as in Alamofire.
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

    /// Calls `completion` once with the request to send, or with an error
    /// that stops the request (Alamofire's shape).
    ///
    /// - Parameters:
    ///   - urlRequest: The request about to be sent.
    ///   - session: The session sending it.
    ///   - completion: Takes the request to send, or the error; later calls are ignored.
    func adapt(
        _ urlRequest: URLRequest, for session: Session,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    )

    /// Calls `completion` once with the request to send; `state` names the
    /// request being adapted. By default, ``adapt(_:for:completion:)``.
    ///
    /// - Parameters:
    ///   - urlRequest: The request about to be sent.
    ///   - state: The request's ``Request/id`` and its session.
    ///   - completion: Takes the request to send, or the error; later calls are ignored.
    func adapt(
        _ urlRequest: URLRequest, using state: RequestAdapterState,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    )
}

/// What an adapter learns of the request it adapts, beside its `URLRequest`.
public struct RequestAdapterState: Sendable {
    /// The ``Request/id`` of the request being adapted.
    public let requestID: UUID
    /// The session running it.
    public let session: Session
    /// The ``AuthenticationInterceptor`` whose refresh started the request,
    /// if one did: that interceptor must not wait for its own refresh.
    let refreshingInterceptor: ObjectIdentifier?

    /// Creates the state an adapter is given.
    ///
    /// - Parameters:
    ///   - requestID: The ``Request/id`` of the request being adapted.
    ///   - session: The session running it.
    public init(requestID: UUID, session: Session) {
        self.init(requestID: requestID, session: session, refreshingInterceptor: nil)
    }

    init(requestID: UUID, session: Session, refreshingInterceptor: ObjectIdentifier?) {
        self.requestID = requestID
        self.session = session
        self.refreshingInterceptor = refreshingInterceptor
    }
}

extension RequestAdapter {
    public func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        if ShapeBridge.isBridging(Self.self) {
            throw UnimplementedRequirement(type: Self.self, requirement: "adapt(_:for:)")
        }
        return try await withCheckedThrowingContinuation { continuation in
            let once = ResumeOnce(continuation)
            adapt(urlRequest, for: session) { once.resume(with: $0) }
        }
    }

    public func adapt(
        _ urlRequest: URLRequest, for session: Session,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    ) {
        Task {
            do {
                let adapted = try await ShapeBridge.$bridging.withValue(ObjectIdentifier(Self.self)) {
                    try await adapt(urlRequest, for: session)
                }
                completion(.success(adapted))
            } catch {
                completion(.failure(error))
            }
        }
    }

    public func adapt(
        _ urlRequest: URLRequest, using state: RequestAdapterState,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    ) {
        adapt(urlRequest, for: state.session, completion: completion)
    }
}
