import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Applies and refreshes one kind of ``AuthenticationCredential`` for an
/// ``AuthenticationInterceptor``.
///
/// The authenticator holds no state: the interceptor owns the credential and
/// decides when to refresh it. An OAuth 2 bearer-token authenticator:
///
/// ```swift
/// struct OAuthAuthenticator: Authenticator {
///     let tokenURL: URL
///     /// A session without this authenticator's interceptor, for the refresh request.
///     let tokenSession: Session
///
///     func apply(_ credential: OAuthCredential, to urlRequest: inout URLRequest) {
///         urlRequest.setValue("Bearer \(credential.accessToken)", forHTTPHeaderField: "Authorization")
///     }
///
///     func refresh(_ credential: OAuthCredential, for session: Session) async throws -> OAuthCredential {
///         try await tokenSession.request(tokenURL, method: .post, parameters: ["refresh_token": credential.refreshToken])
///             .validate()
///             .serializingDecodable(OAuthCredential.self)
///             .value
///     }
///
///     func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse,
///                     failDueToAuthenticationError error: HTTPError) -> Bool {
///         response.statusCode == 401
///     }
///
///     func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: OAuthCredential) -> Bool {
///         urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.accessToken)"
///     }
/// }
/// ```
///
/// `refresh` and `didRequest` come in two shapes each — this library's
/// (`async`, ``HTTPError``) and Alamofire's (a completion handler, `any
/// Error`) — so an authenticator written for Alamofire compiles unchanged.
/// Implement one shape of each; each defaults to the other. One that
/// implements neither fails its refreshes with an error naming it, and
/// treats no response as a rejection.
///
/// The interceptor calls these methods from any thread, never while holding
/// its lock, so they may read the interceptor's ``AuthenticationInterceptor/credential``.
public protocol Authenticator: Sendable {
    /// The credential this authenticator applies.
    associatedtype Credential: AuthenticationCredential

    /// Adds `credential` to a request about to be sent, usually as an
    /// `Authorization` header field.
    ///
    /// Called for every attempt on the request's origin, same-origin redirect
    /// hops included; a hop to another origin is not adapted (and loses its
    /// `Authorization`).
    ///
    /// - Parameters:
    ///   - credential: The current credential.
    ///   - urlRequest: The request, to change in place.
    func apply(_ credential: Credential, to urlRequest: inout URLRequest)

    /// Returns a fresh credential to replace `credential`.
    ///
    /// Called once for any number of requests waiting for the same refresh;
    /// none of them blocks a thread meanwhile.
    ///
    /// - Warning: Do not send the refresh request through the interceptor that
    ///   called this method (as the session's interceptor, or the request's):
    ///   its adapter would wait for the refresh in progress, which waits for it.
    ///   Send it without an interceptor, or on another session.
    ///
    /// - Parameters:
    ///   - credential: The credential that expired or was rejected.
    ///   - session: The session running the request that needs the credential.
    /// - Returns: The new credential; the interceptor stores it and retries
    ///   (or sends) every waiting request with it.
    /// - Throws: Any error; every request waiting for this refresh then fails
    ///   with it (as ``HTTPError/requestAdaptationFailed(error:)`` or
    ///   ``HTTPError/requestRetryFailed(retryError:originalError:)``).
    func refresh(_ credential: Credential, for session: Session) async throws -> Credential

    /// Calls `completion` once with a fresh credential, or the error
    /// (Alamofire's shape of ``refresh(_:for:)``). Implement one of the two:
    /// each defaults to the other.
    ///
    /// - Parameters:
    ///   - credential: The credential that expired or was rejected.
    ///   - session: The session running the request that needs the credential.
    ///   - completion: Takes the new credential or the error; later calls are ignored.
    func refresh(
        _ credential: Credential, for session: Session,
        completion: @escaping @Sendable (Result<Credential, any Error>) -> Void
    )

    /// Whether a failed attempt failed because its credential was rejected,
    /// typically `response.statusCode == 401`.
    ///
    /// - Parameters:
    ///   - urlRequest: The attempt's request, as sent.
    ///   - response: Its response.
    ///   - error: The failure the session saw.
    /// - Returns: `true` to refresh (or retry with a newer credential).
    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: HTTPError) -> Bool

    /// The method above in Alamofire's shape, with the error as `any Error`
    /// (always an ``HTTPError``). Implement one of the two: each defaults to the other.
    ///
    /// - Parameters:
    ///   - urlRequest: The attempt's request, as sent.
    ///   - response: Its response.
    ///   - error: The failure the session saw.
    /// - Returns: `true` to refresh (or retry with a newer credential).
    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: any Error) -> Bool

    /// Whether `urlRequest` was sent with `credential`, usually by comparing
    /// its `Authorization` header field.
    ///
    /// `false` means it went out with an older credential, which has been
    /// replaced since: it is retried with the current one, without another
    /// refresh — unless an earlier attempt of the same request carried the
    /// current one (a redirect to another origin removed it), which the
    /// interceptor finds by asking this method about each earlier attempt.
    /// So it may be asked several times per failure: keep it free of side effects.
    ///
    /// - Parameters:
    ///   - urlRequest: The failed attempt's request, as sent (or an earlier attempt's).
    ///   - credential: The interceptor's current credential.
    /// - Returns: Whether the request carried `credential`.
    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: Credential) -> Bool
}

extension Authenticator {
    public func refresh(_ credential: Credential, for session: Session) async throws -> Credential {
        if ShapeBridge.isBridging(Self.self) {
            throw UnimplementedRequirement(type: Self.self, requirement: "refresh(_:for:)")
        }
        return try await withCheckedThrowingContinuation { continuation in
            let once = ResumeOnce(continuation)
            refresh(credential, for: session) { once.resume(with: $0) }
        }
    }

    public func refresh(
        _ credential: Credential, for session: Session,
        completion: @escaping @Sendable (Result<Credential, any Error>) -> Void
    ) {
        Task {
            do {
                let fresh = try await ShapeBridge.$bridging.withValue(ObjectIdentifier(Self.self)) {
                    try await refresh(credential, for: session)
                }
                completion(.success(fresh))
            } catch {
                completion(.failure(error))
            }
        }
    }

    // Neither implemented: `false`, the request is not treated as rejected.
    public func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: HTTPError) -> Bool {
        if ShapeBridge.isBridging(Self.self) { return false }
        return ShapeBridge.$bridging.withValue(ObjectIdentifier(Self.self)) {
            didRequest(urlRequest, with: response, failDueToAuthenticationError: error as any Error)
        }
    }

    public func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: any Error) -> Bool {
        if ShapeBridge.isBridging(Self.self) { return false }
        return ShapeBridge.$bridging.withValue(ObjectIdentifier(Self.self)) {
            didRequest(urlRequest, with: response, failDueToAuthenticationError: HTTPError(transportError: error))
        }
    }
}
