import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// The one retry test that needs a real connection: the server closes it
/// mid-body, so the transport's part (a body cut short is
/// `URLError.networkConnectionLost`, collected or streamed) is checked with
/// the session's decision. The rest of retrying runs once, on MockTransport
/// (Policy/RetryPolicyRetrierTests, RetryPolicyTests).
@Suite("RetryPolicy over a socket: a body cut short")
struct RetryPolicySocketTests {
    @Test(arguments: [false, true])
    func aGetWhoseBodyIsCutShortIsRetriedAndAPostIsNot(streamed: Bool) async throws {
        let hits = Counter()
        let server = try LoopbackServer { _ in
            hits.increment()
            return .closeMidBody(body: Data(repeating: 66, count: 10_000), sentBytes: 100)
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession(retryPolicy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        func send(_ method: HTTPMethod) async -> HTTPError? {
            let request = session.request(server.url("/"), method: method)
            // A progress handler makes the transport hand the body over as it arrives.
            if streamed { request.downloadProgress(queue: handlerQueue) { _ in } }
            return await response { request.responseData(queue: handlerQueue, completionHandler: $0) }?.error
        }
        let get = await send(.get)
        #expect(get?.urlError?.code == .networkConnectionLost, "\(String(describing: get))")
        #expect(hits.count == 3, "the first attempt and two retries")

        let post = await send(.post)
        #expect(post?.urlError?.code == .networkConnectionLost)
        #expect(hits.count == 4, "a POST is sent once")
    }
}
