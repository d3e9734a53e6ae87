import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

/// Refreshing and applying credentials is the session's and the
/// interceptor's: judged once, on MockTransport (`TokenService` answers the
/// token routes from memory; what each attempt sent is the transport's record).
@Suite("AuthenticationInterceptor: one shared refresh, retries with the current credential")
struct AuthenticationInterceptorTests {
    @Test func fiftyConcurrentRequestsWithAnExpiredTokenShareOneRefresh() async throws {
        let tokens = TokenService(token: "server-1")
        let auth = AuthenticationInterceptor(authenticator: tokens.authenticator(), credential: Token("stale", expired: true))
        let session = tokens.makeSession(interceptor: auth)
        let reports = await probeConcurrently(50) { session.request(tokens.url("/resource")) }
        #expect(reports.count == 50)
        #expect(reports.allSatisfy { $0?.eachRanOnce == true && $0?.allKinds.allSatisfy { $0 == "ok" } == true })
        #expect(reports.allSatisfy { $0?.json?["hello"] == "token-1" })
        #expect(tokens.refreshes.count == 1)
        #expect(tokens.rejected.count == 0, "no request went out with the expired token")
        #expect(tokens.fixture.requests(to: "/resource").allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == "Bearer token-1" })
        #expect(auth.credential?.value == "token-1")
    }

    @Test func fiftyConcurrentRejectionsShareOneRefreshAndAreRetried() async throws {
        let tokens = TokenService(token: "server-1")
        let auth = AuthenticationInterceptor(authenticator: tokens.authenticator(), credential: Token("revoked"))
        let session = tokens.makeSession(interceptor: auth)
        let reports = await probeConcurrently(50) { session.request(tokens.url("/resource")) }
        #expect(reports.allSatisfy { $0?.eachRanOnce == true && $0?.allKinds.allSatisfy { $0 == "ok" } == true })
        #expect(tokens.refreshes.count == 1)
        #expect(tokens.rejected.count >= 1)
    }

    @Test func aFailingRefreshFailsEveryWaitingRequestWithItsErrorAfterOneCall() async throws {
        let tokens = TokenService(token: "server-1", refreshFails: true)
        let arrived = Latch(count: 50)
        // The refresh waits until all fifty adapts reached the interceptor, so
        // they all wait for that one refresh.
        let auth = AuthenticationInterceptor(
            authenticator: tokens.authenticator(before: { _ = await arrived.wait() }), credential: Token("stale", expired: true)
        )
        let session = tokens.makeSession(interceptor: Interceptor(adapters: [ArrivalAdapter(latch: arrived), auth]))
        let reports = await probeConcurrently(50) { session.request(tokens.url("/resource")) }
        #expect(reports.allSatisfy { $0?.eachRanOnce == true && $0?.allKinds.allSatisfy { $0 == "adaptation" } == true })
        #expect(tokens.refreshes.count == 1)
        #expect(tokens.resourceRequests.count == 0)
        let errors = Recorder<String>()
        let done = Latch()
        session.request(tokens.url("/resource")).response(queue: handlerQueue) { response in
            errors.append("\(response.error?.underlyingError.map { "\($0)" } ?? "none")")
            done.arrive()
        }
        #expect(await done.wait())
        #expect(errors.events.first?.contains("refresh refused") == true, "the refresh's own error: \(errors.events)")
    }

    @Test func aRequestRejectedWithAnOlderCredentialIsRetriedWithoutRefreshing() async throws {
        let tokens = TokenService(token: "new")
        let auth = AuthenticationInterceptor(authenticator: tokens.authenticator(), credential: Token("old"))
        // While the request that carries "old" is being answered, the app
        // installs "new" (as if another request had refreshed it).
        tokens.onRejected { [weak auth] in auth?.credential = Token("new") }
        let session = tokens.makeSession()
        let report = await probe(session.request(tokens.url("/resource"), interceptor: auth))
        #expect(report?.eachRanOnce == true)
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(report?.json?["hello"] == "new")
        #expect(tokens.refreshes.count == 0)
        #expect(tokens.resourceRequests.count == 2)
    }

    @Test func refreshingMoreOftenThanTheWindowAllowsFailsWithExcessiveRefresh() async throws {
        let tokens = TokenService(token: "never-issued", rejectsEverything: true)
        let auth = AuthenticationInterceptor(
            authenticator: tokens.authenticator(), credential: Token("first"),
            refreshWindow: .init(interval: 3_600, maximumAttempts: 2)
        )
        let session = tokens.makeSession(interceptor: auth)
        let result = await response { session.request(tokens.url("/resource")).responseString(queue: handlerQueue, completionHandler: $0) }
        guard case .requestRetryFailed(let retryError, let original)? = result?.error else {
            Issue.record("expected requestRetryFailed, got \(String(describing: result?.error))")
            return
        }
        #expect(retryError as? AuthenticationError == .excessiveRefresh)
        #expect(original.responseCode == 401)
        #expect("\(AuthenticationError.excessiveRefresh)".contains("refresh window"))
        #expect(tokens.refreshes.count == 2)
        #expect(tokens.resourceRequests.count == 3)
    }

    /// A window of any length, an infinite or NaN one included, limits
    /// refreshes without trapping (`Duration` traps beyond `Int64` seconds).
    @Test(arguments: [Double.infinity, 1e300, .nan])
    func aRefreshWindowOfAnyLengthNeverTraps(interval: Double) async throws {
        let tokens = TokenService(token: "never-issued", rejectsEverything: true)
        let auth = AuthenticationInterceptor(
            authenticator: tokens.authenticator(), credential: Token("first"),
            refreshWindow: .init(interval: interval, maximumAttempts: 2)
        )
        let session = tokens.makeSession(interceptor: auth)
        let result = await response { session.request(tokens.url("/resource")).responseString(queue: handlerQueue, completionHandler: $0) }
        guard case .requestRetryFailed(let retryError, _)? = result?.error else {
            Issue.record("expected requestRetryFailed, got \(String(describing: result?.error))")
            return
        }
        #expect(retryError as? AuthenticationError == .excessiveRefresh)
        #expect(tokens.refreshes.count == 2, "the window limits the refreshes")
    }

    /// Alamofire refreshes again when the refreshed credential still
    /// requires a refresh, until the refresh window calls it excessive.
    @Test func aRefreshedCredentialThatStillRequiresRefreshIsRefreshedAgain() async throws {
        struct Expiring: AuthenticationCredential {
            let value: Int
            let requiresRefresh: Bool
        }
        final class Scripted: Authenticator {
            let expiredUntil: Int
            let refreshes = Mutex(0)
            init(expiredUntil: Int) { self.expiredUntil = expiredUntil }
            func apply(_ credential: Expiring, to urlRequest: inout URLRequest) {
                urlRequest.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
            }
            func refresh(_ credential: Expiring, for session: Session) async throws -> Expiring {
                let count = refreshes.testLock(owner: self) { $0 += 1; return $0 }
                return Expiring(value: count, requiresRefresh: count < expiredUntil)
            }
            func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: HTTPError) -> Bool { false }
            func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: Expiring) -> Bool { true }
        }
        let sent = Recorder<String>()
        let transport = MockTransport { request in
            sent.append(request.value(forHTTPHeaderField: "Authorization") ?? "none")
            return .json("{}")
        }
        // The third refresh gives a credential that no longer needs one.
        let twice = Scripted(expiredUntil: 3)
        let session = Session(transport: transport)
        let auth = AuthenticationInterceptor(authenticator: twice, credential: Expiring(value: 0, requiresRefresh: true))
        let ok = await response { session.request("http://api.invalid/me", interceptor: auth).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(ok?.response?.statusCode == 200)
        #expect(twice.refreshes.testLock(owner: twice) { $0 } == 3)
        #expect(sent.events == ["Bearer 3"])

        // A refresh that never yields a usable credential stops at the window.
        let never = Scripted(expiredUntil: .max)
        let bounded = AuthenticationInterceptor(
            authenticator: never, credential: Expiring(value: 0, requiresRefresh: true),
            refreshWindow: .init(interval: 3_600, maximumAttempts: 4)
        )
        let failed = await response { session.request("http://api.invalid/me", interceptor: bounded).responseData(queue: handlerQueue, completionHandler: $0) }
        guard case .requestAdaptationFailed(let error)? = failed?.error else {
            Issue.record("expected requestAdaptationFailed, got \(String(describing: failed?.error))")
            return
        }
        #expect(error as? AuthenticationError == .excessiveRefresh)
        #expect(never.refreshes.testLock(owner: never) { $0 } == 4)
        #expect(sent.events == ["Bearer 3"], "nothing was sent with a credential that needed a refresh")
    }

    @Test func aMissingCredentialFailsBeforeSendingAndACredentialSetLaterIsUsed() async throws {
        let tokens = TokenService(token: "issued-by-login")
        let auth = AuthenticationInterceptor(authenticator: tokens.authenticator())
        let session = tokens.makeSession(interceptor: auth)
        let missing = await probe(session.request(tokens.url("/resource")))
        #expect(missing?.allKinds.allSatisfy { $0 == "adaptation" } == true)
        #expect(tokens.resourceRequests.count == 0)
        let error = await response { session.request(tokens.url("/resource")).responseData(queue: handlerQueue, completionHandler: $0) }?.error
        #expect(error?.underlyingError as? AuthenticationError == .missingCredential)

        auth.credential = Token("issued-by-login")
        let report = await probe(session.request(tokens.url("/resource")))
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(report?.json?["hello"] == "issued-by-login")
        #expect(tokens.refreshes.count == 0)
    }

    @Test func aRefreshRequestSentThroughTheRefreshingInterceptorFailsInsteadOfWaitingForItself() async throws {
        let tokens = TokenService(token: "server-1")
        let auth = AuthenticationInterceptor(authenticator: tokens.authenticator(throughSession: true), credential: Token("stale", expired: true))
        let session = tokens.makeSession(interceptor: auth)
        let error = await response { session.request(tokens.url("/resource")).responseData(queue: handlerQueue, completionHandler: $0) }?.error
        let refreshError = (error?.underlyingError as? HTTPError)?.underlyingError
        #expect(refreshError as? AuthenticationError == .refreshRequestIntercepted, "got \(String(describing: error))")
        #expect(tokens.refreshes.count == 0)
    }

    @Test func theCredentialDoesNotFollowARedirectToAnotherOrigin() async throws {
        let fixture = PolicyFixture()
        let landing = fixture.otherURL("/json").absoluteString
        let auth = AuthenticationInterceptor(authenticator: TokenAuthenticator(tokenURL: fixture.url("/token"), tokenSession: nil, before: {}),
                                             credential: Token("secret"))
        let json = try await fixture.makeSession(interceptor: auth).request(fixture.url("/redirect?to=\(landing)")).serializingJSON().value
        #expect(json["title"] == "hello")
        #expect(fixture.requests.count == 2)
        #expect(fixture.requests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer secret", "the origin got it")
        let sent = try #require(fixture.requests.last)
        #expect(sent.url?.host == "other.invalid" && sent.url?.path == "/json")
        // Adapters run on redirect hops of the request's own origin only.
        #expect(sent.value(forHTTPHeaderField: "Authorization") == nil)
    }

    /// The other origin's 401 answered a request the credential was removed
    /// from: the interceptor took it for one sent with an older credential
    /// and retried at once, to be redirected and refused again, forever.
    @Test func aRejectionFromTheOriginARedirectLeadsToIsDeliveredNotRetriedForever() async throws {
        let fixture = PolicyFixture()
        let landing = fixture.otherURL("/status/401").absoluteString
        let auth = AuthenticationInterceptor(authenticator: TokenAuthenticator(tokenURL: fixture.url("/token"), tokenSession: nil, before: {}),
                                             credential: Token("secret"))
        let request = fixture.makeSession(interceptor: auth).request(fixture.url("/redirect?to=\(landing)"))
        let statuses = Recorder<Int?>()
        let done = Latch()
        request.response(queue: handlerQueue) { response in
            statuses.append(response.response?.statusCode)
            done.arrive()
        }
        let finished = await done.wait(seconds: 60)
        if !finished { request.cancel() }
        #expect(finished, "still retrying after \(fixture.requests.count) attempts")
        #expect(statuses.events == [401])
        #expect(fixture.requests.count == 2)
    }
}

// MARK: - Fixtures

/// A bearer token that can be marked expired.
struct Token: AuthenticationCredential, Equatable {
    let value: String
    var expired = false
    init(_ value: String, expired: Bool = false) {
        self.value = value
        self.expired = expired
    }
    var requiresRefresh: Bool { expired }
}

/// The token routes, answered from memory by a ``PolicyFixture``: `/resource`
/// is accepted only with `Authorization: Bearer <current token>` (answering
/// `{"hello": token}`, 401 otherwise), and each `POST /token` issues a new
/// token, making it the current one.
final class TokenService: Sendable {
    /// The current token and the rejection hook, behind one lock.
    private final class Shared: Sendable {
        private struct State {
            var token: String
            var onRejected: (@Sendable () -> Void)?
        }
        private let state: Mutex<State>
        init(token: String) { state = Mutex(State(token: token)) }
        var token: String {
            get { state.testLock(owner: self) { $0.token } }
            set { state.testLock(owner: self) { $0.token = newValue } }
        }
        var onRejected: (@Sendable () -> Void)? {
            get { state.testLock(owner: self) { $0.onRejected } }
            set { state.testLock(owner: self) { $0.onRejected = newValue } }
        }
    }

    /// The transport answering the routes, and its record of attempts.
    let fixture: PolicyFixture
    private let shared: Shared
    /// `POST /token` calls.
    let refreshes = Counter()
    /// `/resource` requests, accepted or not.
    let resourceRequests = Counter()
    /// `/resource` requests answered 401.
    let rejected = Counter()

    init(token: String, refreshFails: Bool = false, rejectsEverything: Bool = false) {
        let shared = Shared(token: token)
        let (refreshes, resourceRequests, rejected) = (self.refreshes, self.resourceRequests, self.rejected)
        self.shared = shared
        fixture = PolicyFixture { request in
            switch request.url?.path {
            case "/token":
                let number = refreshes.increment()
                if refreshFails { return .text("refresh refused", status: 500) }
                shared.token = "token-\(number)"
                return .text("token-\(number)")
            case "/resource":
                resourceRequests.increment()
                let token = shared.token
                if !rejectsEverything, request.value(forHTTPHeaderField: "Authorization") == "Bearer \(token)" {
                    return .json(#"{"hello":"\#(token)"}"#)
                }
                rejected.increment()
                shared.onRejected?()
                return .status(401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#], body: Data("unauthorized".utf8))
            default:
                return .text("no route", status: 404)
            }
        }
    }

    func url(_ path: String) -> URL { fixture.url(path) }

    /// A session on the fixture's transport.
    func makeSession(interceptor: (any RequestInterceptor)? = nil) -> Session {
        fixture.makeSession(interceptor: interceptor)
    }

    /// Runs `body` whenever `/resource` rejects a request, before answering.
    func onRejected(_ body: @escaping @Sendable () -> Void) {
        shared.onRejected = body
    }

    /// An authenticator that refreshes with `POST /token`, on a session of its
    /// own (or on the session that asks, when `throughSession`), after `before`.
    func authenticator(throughSession: Bool = false, before: @escaping @Sendable () async -> Void = {}) -> TokenAuthenticator {
        TokenAuthenticator(
            tokenURL: url("/token"), tokenSession: throughSession ? nil : makeSession(), before: before
        )
    }
}

/// Bearer tokens, refreshed by `POST /token`, which answers the new token as text.
struct TokenAuthenticator: Authenticator {
    struct RefreshFailed: Error, CustomStringConvertible {
        let body: String
        var description: String { "the token endpoint answered \(body)" }
    }

    let tokenURL: URL
    /// `nil`: refresh on the session that asks.
    let tokenSession: Session?
    let before: @Sendable () async -> Void

    func apply(_ credential: Token, to urlRequest: inout URLRequest) {
        urlRequest.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: Token, for session: Session) async throws -> Token {
        await before()
        let response = await (tokenSession ?? session).request(tokenURL, method: .post).serializingString().result
        let text = try response.get()
        guard !text.contains(" ") else { throw RefreshFailed(body: text) }
        return Token(text)
    }

    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: HTTPError) -> Bool {
        response.statusCode == 401
    }

    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: Token) -> Bool {
        urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
    }
}

/// Arrives on `latch` each time it adapts a request, changing nothing.
struct ArrivalAdapter: RequestInterceptor {
    let latch: Latch
    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        latch.arrive()
        return urlRequest
    }
}

/// Probes `count` requests made by `make`, all at once.
func probeConcurrently(_ count: Int, _ make: @escaping @Sendable () -> DataRequest) async -> [ProbeReport?] {
    await withTaskGroup(of: ProbeReport?.self) { group in
        for _ in 0..<count { group.addTask { await probe(make()) } }
        var reports: [ProbeReport?] = []
        for await report in group { reports.append(report) }
        return reports
    }
}
