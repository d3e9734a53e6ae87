import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// `RetryPolicy` under Alamofire's labels and defaults, `shouldRetry(request:dueTo:)`,
/// and `ConnectionLostRetryPolicy`; on MockTransport.
@Suite("RetryPolicy: Alamofire's labels, defaults and ConnectionLostRetryPolicy")
struct RetryPolicyAlamofireTests {
    @Test func theDefaultsAreAlamofires() {
        let policy = RetryPolicy()
        #expect(policy.retryLimit == 2)
        #expect(policy.exponentialBackoffBase == 2)
        #expect(policy.exponentialBackoffScale == 0.5)
        #expect(policy.retryableHTTPMethods == [.delete, .get, .head, .options, .put, .trace])
        #expect(policy.retryableHTTPStatusCodes == [408, 500, 502, 503, 504])
        let codes: Set<URLError.Code> = [
            .backgroundSessionInUseByAnotherProcess, .backgroundSessionWasDisconnected, .badServerResponse,
            .callIsActive, .cannotConnectToHost, .cannotFindHost, .cannotLoadFromNetwork, .dataNotAllowed,
            .dnsLookupFailed, .downloadDecodingFailedMidStream, .downloadDecodingFailedToComplete,
            .internationalRoamingOff, .networkConnectionLost, .notConnectedToInternet, .secureConnectionFailed,
            .serverCertificateHasBadDate, .serverCertificateNotYetValid, .timedOut,
        ]
        #expect(policy.retryableURLErrorCodes == codes)
        #expect(!policy.retryableURLErrorCodes.contains(.cancelled))
        #expect(!policy.retryableURLErrorCodes.contains(.badURL))
    }

    /// The request, finished after one attempt answered by `reply`.
    static func finished(_ method: HTTPMethod, _ reply: MockReply) async -> Request {
        let fixture = PolicyFixture { _ in reply }
        let request = fixture.session.request(fixture.url("/once"), method: method)
        _ = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        return request
    }

    @Test func shouldRetryJudgesMethodStatusAndErrorButNotTheLimit() async throws {
        let policy = RetryPolicy(retryLimit: 0)
        let busy = await Self.finished(.get, .status(503))
        #expect(policy.shouldRetry(request: busy, dueTo: HTTPError.responseValidationFailed(reason: .unacceptableStatusCode(code: 503))))
        let posted = await Self.finished(.post, .status(503))
        #expect(!policy.shouldRetry(request: posted, dueTo: HTTPError.responseValidationFailed(reason: .unacceptableStatusCode(code: 503))))
        let lost = await Self.finished(.get, .failure(.networkConnectionLost))
        #expect(policy.shouldRetry(request: lost, dueTo: URLError(.networkConnectionLost)))
        #expect(policy.shouldRetry(request: lost, dueTo: HTTPError.sessionTaskFailed(URLError(.networkConnectionLost))))
        #expect(!policy.shouldRetry(request: lost, dueTo: URLError(.cancelled)))
    }

    @Test func theAccessorTakesAlamofiresLabels() async throws {
        let attempts = Counter()
        let fixture = PolicyFixture { _ in attempts.increment() == 1 ? .status(500) : .json(#"{"ok":true}"#) }
        let request = fixture.session.request(
            fixture.url("/again"),
            interceptor: .retryPolicy(retryLimit: 1, exponentialBackoffBase: 2, exponentialBackoffScale: 0.01)
        )
        #expect(await probe(request)?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(fixture.requests.count == 2)

        // The label reaches the policy: a limit of 0 retries nothing.
        let none = PolicyFixture { _ in .status(500) }
        let once = none.session.request(none.url("/again"), interceptor: .retryPolicy(retryLimit: 0, exponentialBackoffScale: 0.01))
        _ = await probe(once)
        #expect(none.requests.count == 1)
    }

    @Test func connectionLostRetryPolicyRetriesALostConnectionOnly() async throws {
        let attempts = Counter()
        let lostOnce = PolicyFixture { _ in attempts.increment() == 1 ? .failure(.networkConnectionLost) : .json(#"{"ok":true}"#) }
        let policy: ConnectionLostRetryPolicy = .connectionLostRetryPolicy(exponentialBackoffScale: 0.01)
        let recovered = lostOnce.session.request(lostOnce.url("/lost"), interceptor: policy)
        #expect(await probe(recovered)?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(lostOnce.requests.count == 2)

        let busy = PolicyFixture { _ in .status(503) }
        let notRetried = busy.session.request(busy.url("/busy"), interceptor: policy)
        #expect(await probe(notRetried, validated: true)?.allKinds.allSatisfy { $0 == "status(503)" } == true)
        #expect(busy.requests.count == 1, "a 503 is not a lost connection")

        let timedOut = PolicyFixture { _ in .failure(.timedOut) }
        _ = await probe(timedOut.session.request(timedOut.url("/slow"), interceptor: ConnectionLostRetryPolicy(exponentialBackoffScale: 0.01)))
        #expect(timedOut.requests.count == 1, "a time-out is not either")
        #expect(policy.retryableHTTPStatusCodes.isEmpty && policy.policy.retryableHTTPStatusCodes.isEmpty)
        #expect(policy.retryableURLErrorCodes == [.networkConnectionLost])
        let custom = ConnectionLostRetryPolicy(retryLimit: 5, exponentialBackoffBase: 3, exponentialBackoffScale: 0.25, retryableHTTPMethods: [.get])
        #expect(custom.retryLimit == 5 && custom.exponentialBackoffBase == 3 && custom.exponentialBackoffScale == 0.25)
        #expect(custom.retryableHTTPMethods == [.get])
    }
}
