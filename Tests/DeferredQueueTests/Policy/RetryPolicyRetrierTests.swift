import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Retrying is the session's (retriers, then its `RetryPolicy`): judged once,
/// on MockTransport; the attempts are the transport's record. A body cut
/// short on a real connection stays a socket suite (RetryPolicySocketTests).
@Suite("RetryPolicy as a retrier: per request, Retry-After, jitter, shouldRetry")
struct RetryPolicyRetrierTests {
    let quick = RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.01)

    // MARK: - Per request

    @Test func aPolicyGivenAsTheRequestsInterceptorRetriesIt() async throws {
        let fixture = PolicyFixture()
        let report = await probe(fixture.session.request(fixture.url("/flaky"), interceptor: quick))
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(fixture.requests(to: "/flaky").count == 3)
    }

    @Test func aPolicyInsideAnInterceptorRetriesIt() async throws {
        let fixture = PolicyFixture()
        let session = fixture.makeSession(interceptor: Interceptor(retriers: [quick]))
        let report = await probe(session.request(fixture.url("/flaky")))
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(fixture.requests(to: "/flaky").count == 3)
    }

    @Test func aPolicyPerRequestStillLeavesAPostAlone() async throws {
        let fixture = PolicyFixture()
        let result = await response {
            fixture.session.request(fixture.url("/post-503"), method: .post, interceptor: quick).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.response?.statusCode == 503)
        #expect(fixture.requests(to: "/post-503").count == 1)
    }

    /// A delay too long to schedule (infinite, or a `Retry-After` of a
    /// billion seconds under `maximumDelay: .infinity`) was taken as none:
    /// every retry went out at once, thousands a second.
    @Test(arguments: [Double.infinity, 1e12, 1e9])
    func aDelayNoProgramOutlivesIsNoRetry(_ seconds: Double) async throws {
        let fixture = PolicyFixture()
        let retrier = Retrier { _, _, _, completion in completion(.retryWithDelay(seconds)) }
        let result = await response(within: 60) {
            fixture.session.request(fixture.url("/post-503"), interceptor: retrier).validate().responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.response?.statusCode == 503, "\(seconds)")
        #expect(fixture.requests(to: "/post-503").count == 1, "\(seconds): \(fixture.requests(to: "/post-503").count) attempts")
    }

    // MARK: - Retry-After

    @Test func retryAfterInSecondsIsTheDelay() async throws {
        let hits = Counter()
        let fixture = PolicyFixture { _ in
            hits.increment() == 1 ? .status(503, headers: ["Retry-After": "1"]) : .text("ok")
        }
        let recording = RecordingRetrier(quick)
        let result = await response {
            fixture.session.request(fixture.url("/"), interceptor: recording).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "ok")
        #expect(recording.delays.events == [1])
        #expect(fixture.requests.count == 2)
    }

    @Test func retryAfterLongerThanTheMaximumDelayIsDeliveredNotRetried() async throws {
        let fixture = PolicyFixture { _ in
            .status(503, headers: ["Retry-After": "3600"], body: Data("maintenance".utf8))
        }
        let result = await response {
            fixture.session.request(fixture.url("/"), interceptor: quick).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.response?.statusCode == 503)
        #expect(result?.response?.value(forHTTPHeaderField: "Retry-After") == "3600", "the caller sees when to come back")
        #expect(result?.value == "maintenance")
        #expect(fixture.requests.count == 1)
    }

    @Test func theSessionsPolicyHonoursRetryAfterToo() async throws {
        let fixture = PolicyFixture { _ in .status(503, headers: ["Retry-After": "3600"]) }
        let session = fixture.makeSession(retryPolicy: quick)
        let result = await response { session.request(fixture.url("/")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.response?.statusCode == 503)
        #expect(fixture.requests.count == 1)
    }

    @Test func retryAfterIsReadInEachFormTheRFCAllows() throws {
        // 1994-11-06 08:49:07 UTC, 30 s before the examples of RFC 9110 §5.6.7.
        let now = Date(timeIntervalSince1970: 784_111_747)
        #expect(RetryAfter.delay(from: "120", now: now) == 120)
        #expect(RetryAfter.delay(from: " 0 ", now: now) == 0)
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 30)
        #expect(RetryAfter.delay(from: "Sunday, 06-Nov-94 08:49:37 GMT", now: now) == 30)
        #expect(RetryAfter.delay(from: "Sun Nov  6 08:49:37 1994", now: now) == 30)
        #expect(RetryAfter.delay(from: "Sat, 05 Nov 1994 08:49:37 GMT", now: now) == 0, "a date in the past: now")
        for garbage in ["", "-5", "1.5", "soon", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 99999999999 08:49:37 GMT",
                        "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT"] {
            #expect(RetryAfter.delay(from: garbage, now: now) == nil, "\(garbage)")
        }
    }

    @Test func retryAfterReplacesTheBackoffOnlyWithinTheMaximumDelay() throws {
        var policy = RetryPolicy(exponentialBackoffScale: 4, jitter: .none, maximumDelay: 10)
        #expect(policy.wait(beforeRetry: 0, response: try head(retryAfter: "7")) == 7)
        #expect(policy.wait(beforeRetry: 0, response: try head(retryAfter: "11")) == nil)
        #expect(policy.wait(beforeRetry: 0, response: try head(retryAfter: nil)) == 4)
        #expect(policy.wait(beforeRetry: 5, response: nil) == 10, "the backoff is capped")
        policy.maximumDelay = .nan
        #expect(policy.wait(beforeRetry: 0, response: nil) == 0, "a NaN cap does not crash")
    }

    // MARK: - Jitter

    @Test func jitterIsTheDocumentedFractionOfTheBackoff() {
        var policy = RetryPolicy(exponentialBackoffBase: 2, exponentialBackoffScale: 1, jitter: .none)
        policy.randomFraction = { 0.25 }
        #expect(policy.wait(beforeRetry: 2, response: nil) == 4)
        policy.jitter = .full
        #expect(policy.wait(beforeRetry: 2, response: nil) == 1)
        policy.jitter = .equal
        #expect(policy.wait(beforeRetry: 2, response: nil) == 2.5)
        #expect(RetryPolicy().jitter == .equal, "equal jitter by default")
    }

    @Test func jitteredDelaysStayWithinTheirBounds() {
        let full = RetryPolicy(exponentialBackoffScale: 1, jitter: .full)
        let equal = RetryPolicy(exponentialBackoffScale: 1, jitter: .equal)
        for retry in 0..<3 {
            let nominal = pow(2, Double(retry))
            for _ in 0..<200 {
                let a = full.wait(beforeRetry: retry, response: nil) ?? -1
                let b = equal.wait(beforeRetry: retry, response: nil) ?? -1
                #expect(a >= 0 && a <= nominal)
                #expect(b >= nominal / 2 && b <= nominal)
            }
        }
    }

    // MARK: - shouldRetry

    @Test func shouldRetryDecidesInsteadOfTheSets() async throws {
        let hits = Counter()
        let fixture = PolicyFixture { request in
            switch request.url?.path {
            case "/429-once": hits.increment() == 1 ? .text("slow down", status: 429) : .text("ok")
            case "/busy": .text("busy", status: 503)
            default: nil
            }
        }
        let policy = RetryPolicy(exponentialBackoffScale: 0.01, shouldRetry: { request, error in
            error.responseCode == 429 && request.response?.statusCode == 429
        })
        let result = await response {
            fixture.session.request(fixture.url("/429-once"), method: .post, interceptor: policy)
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "ok", "a POST answered 429 is retried because the predicate says so")
        #expect(fixture.requests(to: "/429-once").count == 2)

        let never = RetryPolicy(exponentialBackoffScale: 0.01, shouldRetry: { _, _ in false })
        let vetoed = await response {
            fixture.session.request(fixture.url("/busy"), interceptor: never).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(vetoed?.response?.statusCode == 503)
        #expect(fixture.requests(to: "/busy").count == 1)
    }

    // MARK: - A body cut short

    // The socket twin, RetryPolicySocketTests, cuts a real connection: there
    // the transport's part (a cut body is URLError.networkConnectionLost) is
    // checked too; here the session's decision alone.
    @Test(arguments: [false, true])
    func aGetWhoseBodyIsCutShortIsRetriedAndAPostIsNot(streamed: Bool) async throws {
        let fixture = PolicyFixture { _ in
            MockReply(steps: [.head(status: 200, headers: [:]), .chunk(Data(repeating: 66, count: 100)), .fail(URLError(.networkConnectionLost))])
        }
        let session = fixture.makeSession(retryPolicy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        func send(_ method: HTTPMethod) async -> HTTPError? {
            let request = session.request(fixture.url("/"), method: method)
            // A progress handler makes the session ask the transport for the body as it arrives.
            if streamed { request.downloadProgress(queue: handlerQueue) { _ in } }
            return await response { request.responseData(queue: handlerQueue, completionHandler: $0) }?.error
        }
        let get = await send(.get)
        #expect(get?.urlError?.code == .networkConnectionLost, "\(String(describing: get))")
        #expect(fixture.requests.count == 3, "the first attempt and two retries")
        #expect(fixture.transport.attempts.allSatisfy { $0.collectsBody == !streamed })

        let post = await send(.post)
        #expect(post?.urlError?.code == .networkConnectionLost)
        #expect(fixture.requests.count == 4, "a POST is sent once")
    }

    private func head(retryAfter: String?) throws -> ResponseHead? {
        ResponseHead(url: try #require(URL(string: "http://127.0.0.1/")), statusCode: 503, httpVersion: "HTTP/1.1",
                     headers: retryAfter.map { ["Retry-After": $0] } ?? [:])
    }
}

/// Asks `policy` and records the delays it chose.
private struct RecordingRetrier: RequestInterceptor {
    let policy: RetryPolicy
    let delays = Recorder<Double>()
    init(_ policy: RetryPolicy) { self.policy = policy }

    func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        let result = await policy.retry(request, for: session, dueTo: error)
        if case .retryWithDelay(let seconds) = result { delays.append(seconds) }
        return result
    }
}
