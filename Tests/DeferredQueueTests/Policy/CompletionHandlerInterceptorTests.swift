import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Interceptors and authenticators written for Alamofire — completion
/// handlers, `any Error` — compile unchanged and run without a task.
@Suite("Interceptors in Alamofire's completion-handler shape")
struct CompletionHandlerInterceptorTests {
    /// Alamofire's shape, as an Alamofire user wrote it; records what it saw.
    struct HeaderAdapter: RequestAdapter {
        let seen = Recorder<(id: UUID, inTask: Bool)>()

        func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            completion(.failure(URLError(.unknown)))
        }

        func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            seen.append((state.requestID, withUnsafeCurrentTask { $0 != nil }))
            var request = urlRequest
            request.setValue("yes", forHTTPHeaderField: "X-Adapted")
            completion(.success(request))
            completion(.failure(URLError(.unknown)))  // a second call is ignored
        }
    }

    struct OnceMoreRetrier: RequestRetrier {
        let errors = Recorder<String>()

        func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
            errors.append((error as? HTTPError)?.kind ?? "not an HTTPError: \(error)")
            completion(request.retryCount == 0 ? .retry : .doNotRetry)
            completion(.doNotRetryWithError(URLError(.unknown)))  // ignored
        }
    }

    @Test func anAdapterInAlamofiresShapeRunsOnceWithTheRequestsIDAndNoTask() async throws {
        let fixture = PolicyFixture()
        let adapter = HeaderAdapter()
        let request = fixture.makeSession(interceptor: Interceptor(adapters: [adapter])).request(fixture.url("/json"))
        // Started from a queue, outside any task: the adapter runs there, in no task.
        let started = Latch()
        DispatchQueue(label: "starter").async {
            request.resume()
            started.arrive()
        }
        #expect(await started.wait())
        let report = await probe(request)
        #expect(report?.eachRanOnce == true)
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(fixture.requests.map { $0.value(forHTTPHeaderField: "X-Adapted") } == ["yes"])
        #expect(adapter.seen.events.map(\.id) == [request.id], "the state names the request")
        #expect(adapter.seen.events.map(\.inTask) == [false], "a completion-handler adapter needs no task")
    }

    @Test func aRetrierInAlamofiresShapeSeesAnHTTPErrorAndDecidesOnce() async throws {
        let attempts = Counter()
        let fixture = PolicyFixture { _ in attempts.increment() == 1 ? .text("busy", status: 503) : .json(#"{"ok":true}"#) }
        let retrier = OnceMoreRetrier()
        let request = fixture.makeSession(interceptor: Interceptor(retriers: [retrier])).request(fixture.url("/any"))
        let report = await probe(request, validated: true)
        #expect(report?.eachRanOnce == true)
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(retrier.errors.events == ["status(503)"], "asked once, with an HTTPError; the second completion was ignored")
        #expect(request.retryCount == 1)
    }

    /// Alamofire's minimal adapter: only `adapt(_:for:completion:)`.
    struct PlainAdapter: RequestAdapter {
        func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            var request = urlRequest
            request.setValue("plain", forHTTPHeaderField: "X-Adapted")
            completion(.success(request))
        }
    }

    struct AsyncAdapter: RequestAdapter {
        func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
            var request = urlRequest
            request.setValue("async", forHTTPHeaderField: "X-Adapted")
            return request
        }
    }

    @Test func eachShapeDefaultsToTheOther() async throws {
        let fixture = PolicyFixture()
        let plain = fixture.makeSession(interceptor: Interceptor(adapters: [PlainAdapter()])).request(fixture.url("/json"))
        let asynchronous = fixture.makeSession(interceptor: Interceptor(adapters: [AsyncAdapter()])).request(fixture.url("/json"))
        #expect(await probe(plain)?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(await probe(asynchronous)?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(Set(fixture.requests.map { $0.value(forHTTPHeaderField: "X-Adapted") }) == ["plain", "async"])

        // Called directly: the async form of a completion-handler adapter, and the reverse.
        let blank = URLRequest(url: fixture.url("/json"))
        let bridged = try await PlainAdapter().adapt(blank, for: fixture.session)
        #expect(bridged.value(forHTTPHeaderField: "X-Adapted") == "plain")
        let result = Recorder<String>()
        let done = Latch()
        AsyncAdapter().adapt(blank, for: fixture.session) { outcome in
            result.append((try? outcome.get().value(forHTTPHeaderField: "X-Adapted")) ?? "failed")
            done.arrive()
        }
        #expect(await done.wait())
        #expect(result.events == ["async"])
    }

    /// Alamofire's authenticator shape: a completion-handler refresh, `any Error`.
    struct CompletionAuthenticator: Authenticator {
        let refreshes = Counter()

        func apply(_ credential: Token, to urlRequest: inout URLRequest) {
            urlRequest.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
        }

        func refresh(_ credential: Token, for session: Session, completion: @escaping @Sendable (Result<Token, any Error>) -> Void) {
            refreshes.increment()
            completion(.success(Token("fresh")))
        }

        func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: any Error) -> Bool {
            response.statusCode == 401 && error is HTTPError
        }

        func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: Token) -> Bool {
            urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
        }
    }

    @Test func anAuthenticatorInAlamofiresShapeRefreshesARejectedCredential() async throws {
        let fixture = PolicyFixture { request in
            request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh" ? .json(#"{"ok":true}"#) : .status(401)
        }
        let authenticator = CompletionAuthenticator()
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: Token("revoked"))
        let report = await probe(fixture.makeSession(interceptor: auth).request(fixture.url("/resource")), validated: true)
        #expect(report?.eachRanOnce == true)
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(authenticator.refreshes.count == 1)
        #expect(fixture.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer revoked", "Bearer fresh"])
    }
}

extension CompletionHandlerInterceptorTests {
    /// Calls its completion only when `release` is signalled; notes the queue it ran on.
    final class ParkedAdapter: RequestAdapter {
        let reached = Latch()
        let release = DispatchSemaphore(value: 0)
        let onCallbackQueue = Recorder<Bool>()
        let key: DispatchSpecificKey<Bool>

        init(key: DispatchSpecificKey<Bool>) { self.key = key }

        func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            onCallbackQueue.append(DispatchQueue.getSpecific(key: key) == true)
            reached.arrive()
            DispatchQueue.global().async {
                _ = self.release.wait(timeout: .now() + 600)
                completion(.success(urlRequest))
            }
        }
    }

    @Test func adaptersRunOnTheSessionsQueueAndAreNotHeardOfAfterTheRequestEnds() async throws {
        let fixture = PolicyFixture()
        let key = DispatchSpecificKey<Bool>()
        fixture.transport.callbackQueue.setSpecific(key: key, value: true)
        let adapter = ParkedAdapter(key: key)
        let journal = EventMonitorEventsTests.Journal()
        let request = fixture.makeSession(interceptor: Interceptor(adapters: [adapter]), eventMonitors: [journal])
            .request(fixture.url("/json"))
        let done = Latch()
        request.responseData(queue: handlerQueue) { _ in done.arrive() }   // starts it, from this task
        #expect(await adapter.reached.wait())
        #expect(adapter.onCallbackQueue.events == [true], "not on the thread that added the handler")
        request.cancel()
        #expect(await done.wait())
        adapter.release.signal()
        // The adapter's late success is dropped, and monitors hear nothing after the finish.
        try await Task.sleep(nanoseconds: 100_000_000)
        let lines = await EventMonitorEventsTests.settle(journal)
        #expect(lines == ["resume", "initial /json", "cancel", "finish"], "\(lines)")
        #expect(fixture.requests.isEmpty)
    }
}
