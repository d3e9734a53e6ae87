import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Authenticates requests with a credential that expires, refreshing it once
/// for all the requests that need it.
///
/// As an adapter it applies the current credential to every attempt. When the
/// credential ``AuthenticationCredential/requiresRefresh``, the attempt waits
/// for a refresh; every other attempt arriving meanwhile waits for the *same*
/// refresh — no thread is blocked — and all of them then go out with the new
/// credential — or, when the refreshed credential still requires a refresh,
/// wait for another. As a retrier it handles attempts the server rejected (as the
/// ``Authenticator`` recognises them, typically a 401): one sent with an older
/// credential than the current one is retried at once; otherwise the
/// credential is refreshed once, shared by every rejected request, and they
/// are all retried. A failed refresh fails every request waiting for it with
/// the refresh's error.
///
/// ```swift
/// let auth = AuthenticationInterceptor(authenticator: OAuthAuthenticator(tokenURL: tokenURL),
///                                      credential: storedCredential)
/// session.request("https://api.example.com/me", interceptor: auth)
///     .validate()
///     .responseDecodable(of: User.self) { response in … }
/// ```
///
/// To stop a broken refresh from looping, at most
/// ``RefreshWindow/maximumAttempts`` refreshes may happen within
/// ``RefreshWindow/interval`` seconds; beyond that, requests fail with
/// ``AuthenticationError/excessiveRefresh``. Without a credential they fail
/// with ``AuthenticationError/missingCredential`` and nothing is sent.
///
/// ## Threading
///
/// Use it from any thread, with any number of sessions and requests. All its
/// mutable state — the credential, the refresh in progress, recent refresh
/// times — sits in one struct behind one `Mutex` (`state`); the authenticator
/// is never called while that lock is held.
public final class AuthenticationInterceptor<A: Authenticator>: RequestInterceptor {
    /// The credential type.
    public typealias Credential = A.Credential

    /// How many refreshes may happen in how long before the interceptor gives up.
    public struct RefreshWindow: Sendable {
        /// The window, in seconds.
        public var interval: Double
        /// The most refreshes within ``interval``.
        public var maximumAttempts: Int

        /// ``interval`` as a `Duration`, which traps beyond `Int64` seconds:
        /// an infinite window, one longer than a century or NaN is a century
        /// (no process outlives it; NaN limits rather than frees refreshes),
        /// and none at all (0 or less) counts no refresh, as in Alamofire.
        var duration: Duration {
            if interval.isNaN { return .seconds(3_155_760_000) }
            guard interval > 0 else { return .zero }
            return .seconds(min(interval, 3_155_760_000))
        }

        /// Creates a window.
        ///
        /// - Parameters:
        ///   - interval: The window, in seconds (default 30).
        ///   - maximumAttempts: The most refreshes within it (default 5).
        public init(interval: Double = 30, maximumAttempts: Int = 5) {
            self.interval = interval
            self.maximumAttempts = maximumAttempts
        }
    }

    /// Everything that changes, behind `state`'s lock.
    private struct State: Sendable {
        var credential: Credential?
        /// Increases whenever `credential` changes, so a decision taken on a
        /// copy can tell that the credential was replaced meanwhile.
        var generation = 0
        /// The refresh in progress, which every waiting request awaits.
        var refresh: Task<Credential, any Error>?
        /// When recent refreshes started (for the refresh window).
        var refreshStarts: [ContinuousClock.Instant] = []
    }

    /// What a request waiting for a usable credential does.
    private enum Wait {
        case use(Credential)
        case await(Task<Credential, any Error>)
    }

    /// Applies and refreshes the credential.
    public let authenticator: A
    /// Limits how often the credential is refreshed.
    public let refreshWindow: RefreshWindow
    /// The interceptor's one lock, guarding all of its mutable state.
    private let state: Mutex<State>

    /// Creates an interceptor.
    ///
    /// - Parameters:
    ///   - authenticator: Applies and refreshes the credential.
    ///   - credential: The credential to start with; `nil` until you set
    ///     ``credential`` (requests fail with ``AuthenticationError/missingCredential`` meanwhile).
    ///   - refreshWindow: At most this many refreshes in this many seconds
    ///     (default 5 in 30).
    public init(
        authenticator: A,
        credential: Credential? = nil,
        refreshWindow: RefreshWindow = .init(interval: 30, maximumAttempts: 5)
    ) {
        self.authenticator = authenticator
        self.refreshWindow = refreshWindow
        self.state = Mutex(State(credential: credential))
    }

    /// The credential applied to requests; set it after signing in, or to
    /// `nil` after signing out. Thread-safe.
    ///
    /// A refresh that is in progress when you set it still replaces it when it ends.
    public var credential: Credential? {
        get { state.withLock(owner: self) { $0.credential } }
        set {
            state.withLock(owner: self) { state in
                state.credential = newValue
                state.generation += 1
            }
        }
    }

    // MARK: - RequestAdapter

    /// Applies the current credential, after waiting for a refresh when one is
    /// in progress or the credential requires one.
    ///
    /// - Parameters:
    ///   - urlRequest: The attempt's request.
    ///   - session: The session sending it.
    /// - Returns: The request with the credential applied.
    /// - Throws: ``AuthenticationError/missingCredential`` without a credential;
    ///   the refresh's error when the refresh fails;
    ///   ``AuthenticationError/excessiveRefresh`` beyond the refresh window.
    public func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        if RefreshContext.interceptor == ObjectIdentifier(self) {
            throw AuthenticationError.refreshRequestIntercepted
        }
        // A refreshed credential that still requires a refresh is refreshed
        // again, as in Alamofire, until the refresh window says it is excessive.
        while true {
            let (current, generation, running) = state.withLock(owner: self) { ($0.credential, $0.generation, $0.refresh) }
            let candidate: Credential
            if let running {
                candidate = try await running.value
            } else if let current, !current.requiresRefresh {
                candidate = current
            } else if let current {
                candidate = try await refreshed(current, generation: generation, session: session)
            } else {
                throw AuthenticationError.missingCredential
            }
            if !candidate.requiresRefresh {
                var adapted = urlRequest
                authenticator.apply(candidate, to: &adapted)
                return adapted
            }
        }
    }

    /// The session's call: a usable credential is applied at once, with no
    /// task; a refresh to wait for (or to start) is awaited in a task. A
    /// request this interceptor's own refresh started fails with
    /// ``AuthenticationError/refreshRequestIntercepted`` instead of waiting
    /// for itself.
    ///
    /// - Parameters:
    ///   - urlRequest: The attempt's request.
    ///   - state: The request's identity and session.
    ///   - completion: Takes the request with the credential applied, or the error.
    public func adapt(
        _ urlRequest: URLRequest, using state: RequestAdapterState,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    ) {
        if state.refreshingInterceptor == ObjectIdentifier(self) {
            return completion(.failure(AuthenticationError.refreshRequestIntercepted))
        }
        let ready = self.state.withLock(owner: self) { state -> Credential? in
            guard state.refresh == nil, let current = state.credential, !current.requiresRefresh else { return nil }
            return current
        }
        if let ready {
            var adapted = urlRequest
            authenticator.apply(ready, to: &adapted)
            return completion(.success(adapted))
        }
        let session = state.session
        Task {
            do {
                completion(.success(try await self.adapt(urlRequest, for: session)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    // MARK: - RequestRetrier

    /// Retries a request the server rejected for its credential: at once when
    /// it carried an older credential than the current one, otherwise after
    /// one shared refresh.
    ///
    /// - Parameters:
    ///   - request: The failed request; its ``Request/request`` is the attempt as sent.
    ///   - session: The session running it.
    ///   - error: The failure.
    /// - Returns: `.retry`; `.doNotRetry` for a failure that is not an
    ///   authentication error; `.doNotRetryWithError` with the refresh's error,
    ///   ``AuthenticationError/excessiveRefresh`` or ``AuthenticationError/missingCredential``.
    public func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        guard let urlRequest = request.request, let response = request.response,
              authenticator.didRequest(urlRequest, with: response, failDueToAuthenticationError: error)
        else { return .doNotRetry }
        let (current, generation) = state.withLock(owner: self) { ($0.credential, $0.generation) }
        guard let current else { return .doNotRetryWithError(AuthenticationError.missingCredential) }
        guard authenticator.isRequest(urlRequest, authenticatedWith: current) else {
            // Sent with an earlier credential: retried with the current one. But
            // an earlier attempt of this request that carried the current one
            // means a redirect to another origin removed it (it is not sent
            // there): that origin's 401 is not this credential's to answer,
            // and each retry would be redirected and refused again, forever.
            if request.requests.contains(where: { authenticator.isRequest($0, authenticatedWith: current) }) {
                return .doNotRetry
            }
            return .retry
        }
        do {
            _ = try await refreshed(current, generation: generation, session: session)
            return .retry
        } catch {
            return .doNotRetryWithError(error)
        }
    }

    // MARK: - Refreshing

    /// A credential newer than `credential` (read at `generation`): the result
    /// of the refresh in progress, the credential set since, or a new refresh's.
    private func refreshed(_ credential: Credential, generation: Int, session: Session) async throws -> Credential {
        let wait = try state.withLock(owner: self) { state throws(AuthenticationError) -> Wait in
            if let running = state.refresh { return .await(running) }
            if state.generation != generation, let replaced = state.credential { return .use(replaced) }
            let now = ContinuousClock.now
            let window = refreshWindow.duration
            state.refreshStarts.removeAll { now - $0 > window }
            guard state.refreshStarts.count < refreshWindow.maximumAttempts else {
                throw AuthenticationError.excessiveRefresh
            }
            state.refreshStarts.append(now)
            let task = startRefresh(of: credential, session: session)
            state.refresh = task
            return .await(task)
        }
        switch wait {
        case .use(let credential): return credential
        case .await(let task): return try await task.value
        }
    }

    /// Runs the authenticator's refresh in a task of its own, which stores the
    /// outcome before any waiter sees it. Called under the lock: the task
    /// cannot store its outcome before `state.refresh` holds it.
    private func startRefresh(of credential: Credential, session: Session) -> Task<Credential, any Error> {
        let authenticator = self.authenticator
        let id = ObjectIdentifier(self)
        return Task {
            do {
                let fresh = try await RefreshContext.$interceptor.withValue(id) {
                    try await authenticator.refresh(credential, for: session)
                }
                self.state.withLock(owner: self) { state in
                    state.credential = fresh
                    state.generation += 1
                    state.refresh = nil
                }
                return fresh
            } catch {
                self.state.withLock(owner: self) { $0.refresh = nil }
                throw error
            }
        }
    }
}

/// Marks the tasks that run an authenticator's refresh, so a refresh request
/// sent through the refreshing interceptor fails instead of waiting for itself.
enum RefreshContext {
    /// The interceptor whose refresh the current task is running.
    @TaskLocal static var interceptor: ObjectIdentifier?
}
