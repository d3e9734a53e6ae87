import DeferredQueueBehaviourSuites
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// The free functions (`request(…)`) run on ``Session/default``, a URLSession
/// session. Everything else about requests is tested in the shared suites
/// (HTTP/), which run on every transport through `TestTransport`.
@Suite("Free functions: request(…) on Session.default")
struct FreeFunctionTests {
    @Test func theFreeFunctionSendsOnTheDefaultSession() async throws {
        let fixture = try Fixture()
        let req = request(fixture.url("/json"))
        #expect(req.session === Session.default)
        #expect(Session.default.transport is URLSessionTransport)
        let result = await response { req.responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value?["count"].int == 3)
    }

    @Test func theFreeFunctionPassesMethodHeadersBodyAndTimeout() async throws {
        let fixture = try Fixture()
        let echoed = try await request(
            fixture.url("/echo"), method: .put, headers: ["X-Test": "yes"], body: Data("payload".utf8), timeout: 30
        ).serializingJSON().value
        #expect(echoed["method"] == "PUT")
        #expect(echoed["body"] == "payload")
        #expect(echoed["headers"].object?.first { $0.key.lowercased() == "x-test" }?.value == "yes")
        let timedOut = await response { request(fixture.url("/never"), timeout: 1).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(timedOut?.error?.isTimeout == true)
    }

    @Test func theFreeFunctionReportsAnInvalidURL() async {
        let result = await request("not a url").serializingData().result
        guard case .failure(let error as HTTPError) = result else {
            Issue.record("expected invalidURL, got \(result)")
            return
        }
        #expect(error.kind == "invalidURL")
    }
}
