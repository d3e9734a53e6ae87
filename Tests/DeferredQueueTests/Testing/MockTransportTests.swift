import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// MockTransport answers as scripted, keeps the transport contract, and
/// leaves every policy to the session: no socket is opened here.
/// The error of a failed result.
private func failure<Value>(of result: Result<Value, any Error>) -> HTTPError? {
    if case .failure(let error) = result { return error as? HTTPError }
    return nil
}

@Suite("MockTransport: scripted replies under a real session", .timeLimit(.minutes(2)))
struct MockTransportTests {
    private let base = URL(string: "https://api.example.invalid")!

    @Test func aScriptedReplyReachesTheSerializerAndTheAttemptIsRecorded() async throws {
        let transport = MockTransport { _ in .json(#"{"title":"hello"}"#) }
        let session = Session(transport: transport)
        let request = session.request(base.appendingPathComponent("entry"), method: .post, headers: ["X-Trace": "1"])
        let json = try await request.validate(contentType: ["application/json"]).serializingString().value
        #expect(json == #"{"title":"hello"}"#)
        let sent = try #require(transport.requests.first)
        #expect(transport.requests.count == 1)
        #expect(sent.httpMethod == "POST")
        #expect(sent.url?.path == "/entry")
        #expect(sent.value(forHTTPHeaderField: "X-Trace") == "1")
        #expect(transport.attempts.first?.collectsBody == true)
    }

    @Test func theSessionFollowsARedirectAsTwoAttempts() async throws {
        let transport = MockTransport { request in
            request.url?.path == "/old" ? .redirect(to: "/new") : .text("moved here")
        }
        let session = Session(transport: transport)
        let text = try await session.request(base.appendingPathComponent("old")).serializingString().value
        #expect(text == "moved here")
        #expect(transport.requests.map { $0.url?.path } == ["/old", "/new"])
    }

    @Test func theSessionsRetryPolicyRetriesAScriptedFailure() async throws {
        let calls = Counter()
        let transport = MockTransport { _ in
            calls.add(1)
            return calls.count == 1 ? .failure(.networkConnectionLost) : .text("second time")
        }
        let session = Session(transport: transport, retryPolicy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        let text = try await session.request(base).serializingString().value
        #expect(text == "second time")
        #expect(transport.attempts.count == 2)
    }

    @Test func aStatusTheCallerRejectsIsAValidationFailure() async throws {
        let session = Session(transport: MockTransport(replying: .status(503)))
        let result = await session.request(base).validate().serializingData().result
        guard case .responseValidationFailed(reason: .unacceptableStatusCode(code: 503))? = failure(of: result) else {
            Issue.record("expected a 503 validation failure, got \(result)")
            return
        }
    }

    @Test func chunksAreStreamedInOrderThenTheStreamCompletes() async throws {
        let parts = ["one ", "two ", "three"].map { Data($0.utf8) }
        let session = Session(transport: MockTransport(replying: .chunks(parts, interval: 0.01)))
        var received: [Data] = []
        for try await chunk in session.streamRequest(base).streamingData() {
            received.append(chunk)
        }
        #expect(received == parts)
    }

    @Test func aFailureReachesTheCallerAsItsURLError() async throws {
        let session = Session(transport: MockTransport(replying: .failure(.notConnectedToInternet)))
        let result = await session.request(base).serializingData().result
        #expect(failure(of: result)?.urlError?.code == .notConnectedToInternet, "\(result)")
    }

    @Test func silenceEndsAtTheRequestsIdleTimeout() async throws {
        let session = Session(transport: MockTransport(replying: .silence))
        let result = await session.request(base, timeout: 0.2).serializingData().result
        #expect(failure(of: result)?.urlError?.code == .timedOut, "\(result)")
    }

    @Test func cancellingASilentRequestCompletesItOnce() async throws {
        let transport = MockTransport(replying: .silence)
        let session = Session(transport: transport)
        let request = session.request(base, timeout: .infinity)  // no timeout a starved test could reach first
        let outcome = Task { await request.serializingData().result }
        while transport.attempts.isEmpty { try await Task.sleep(nanoseconds: 1_000_000) }
        request.cancel()
        let result = await outcome.value
        #expect(failure(of: result)?.isCancelled == true, "\(result)")
        #expect(transport.attempts.count == 1)
    }

    @Test func theSessionsBodyLimitAppliesToACollectedReply() async throws {
        let session = Session(transport: MockTransport(replying: .status(200, body: Data(count: 1_000))))
        let result = await session.request(base).maximumResponseBodySize(100).serializingData().result
        guard case .responseTooLarge(limit: 100)? = failure(of: result) else {
            Issue.record("expected responseTooLarge(100), got \(result)")
            return
        }
    }

    @Test func aChunkBeforeAnyHeadIsABadServerResponse() async throws {
        let session = Session(transport: MockTransport(replying: MockReply(steps: [.chunk(Data("x".utf8))])))
        let result = await session.request(base).serializingData().result
        #expect(failure(of: result)?.urlError?.code == .badServerResponse, "\(result)")
    }

    @Test func theSessionShutsTheTransportDownWhenItGoesAway() async throws {
        let transport = MockTransport(replying: .text("ok"))
        do {
            let session = Session(transport: transport)
            #expect(try await session.request(base).serializingString().value == "ok")
        }
        #expect(await eventually(within: 10) { transport.isShutDown })
    }
}
