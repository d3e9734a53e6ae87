import Foundation
import TestSupport
import Testing
@testable import DeferredQueue

/// Whether and when to retry is the session's (its `RetryPolicy`): judged
/// once, on MockTransport. `/flaky` fails twice with 503, then succeeds;
/// the attempts are the transport's record.
@Suite("Session: retry policy")
struct RetryPolicyTests {
    /// A new fixture per test: scripted replies, and sessions on them.
    let fixture = PolicyFixture()
    let quickPolicy = RetryPolicy(retryLimit: 3, exponentialBackoffBase: 2, exponentialBackoffScale: 0.01)

    @Test func retriesA503TwiceThenSucceedsAndHandlersSeeOnlyTheFinalAttempt() async throws {
        let session = fixture.makeSession(retryPolicy: quickPolicy)
        let outcomes = Recorder<Int>()
        let result = await response { handler in
            session.request(fixture.url("/flaky"))
                .response(queue: handlerQueue) { outcomes.append($0.response?.statusCode ?? 0) }
                .responseJSON(queue: handlerQueue, completionHandler: handler)
        }
        #expect(result?.value?["ok"] == true)
        #expect(fixture.requests(to: "/flaky").count == 3)
        #expect(outcomes.events == [200])
    }

    @Test func doesNotRetryAPost() async throws {
        let session = fixture.makeSession(retryPolicy: quickPolicy)
        let result = await response { session.request(fixture.url("/post-503"), method: .post).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.response?.statusCode == 503)
        #expect(fixture.requests(to: "/post-503").count == 1)
    }

    @Test func givesUpAfterTheLimitWithTheLastResponse() async throws {
        let session = fixture.makeSession(retryPolicy: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.01))
        let result = await response { session.request(fixture.url("/flaky")).validate().responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.kind == "status(503)")
        #expect(fixture.requests(to: "/flaky").count == 2)
    }

    @Test func backoffGrowsExponentiallyAndRespectsTheRules() {
        let policy = RetryPolicy(retryLimit: 3, exponentialBackoffBase: 2, exponentialBackoffScale: 0.5, jitter: .none)
        #expect(policy.delay(beforeRetry: 0, method: .get, statusCode: 503, error: nil) == 0.5)
        #expect(policy.delay(beforeRetry: 2, method: .get, statusCode: 503, error: nil) == 2)
        #expect(policy.delay(beforeRetry: 3, method: .get, statusCode: 503, error: nil) == nil)
        #expect(policy.delay(beforeRetry: 0, method: .post, statusCode: 503, error: nil) == nil)
        #expect(policy.delay(beforeRetry: 0, method: .get, statusCode: 404, error: nil) == nil)
        #expect(policy.delay(beforeRetry: 0, method: .get, statusCode: nil, error: URLError(.timedOut)) == 0.5)
        #expect(policy.delay(beforeRetry: 0, method: .get, statusCode: nil, error: URLError(.badURL)) == nil)
    }

    /// Alamofire's order: a retryable status is retried even when the
    /// transfer then failed with an error the policy does not retry; the
    /// error decides only when the status does not.
    @Test func theStatusIsJudgedBeforeTheTransportError() {
        let policy = RetryPolicy(jitter: .none)
        #expect(policy.delay(beforeRetry: 0, method: .get, statusCode: 503, error: URLError(.unknown)) == 0.5)
        #expect(policy.delay(beforeRetry: 0, method: .get, statusCode: 200, error: URLError(.unknown)) == nil)
        #expect(policy.delay(beforeRetry: 0, method: .get, statusCode: 200, error: URLError(.networkConnectionLost)) == 0.5)
        #expect(policy.delay(beforeRetry: 0, method: .post, statusCode: 503, error: URLError(.unknown)) == nil)
    }
}
