import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

// URLSession on Linux ignores `timeoutIntervalForResource`: a server that
// trickles a byte every half second holds a request for as long as it likes.
@Suite("Deadline: the resource timeout bounds the whole request")
struct DeadlineTests {
    private static func tricklingServer(attempts: Counter) throws -> LoopbackServer {
        try LoopbackServer { _ in
            attempts.increment()
            // About 20 minutes of body, one byte every half second.
            return .trickle(body: Data(repeating: 65, count: 2_400), chunkSize: 1, interval: 0.5)
        }
    }

    @Test func aTricklingServerHitsTheDeadline() async throws {
        let attempts = Counter()
        let server = try Self.tricklingServer(attempts: attempts)
        defer { server.shutdown() }
        let session = TestTransport.makeSession(resourceTimeout: 2)
        let result = await response(within: 120) {
            session.request(server.url("/"), timeout: 1).responseData(queue: handlerQueue, completionHandler: $0)
        }
        let error = try #require(result?.error, "the request ended")
        #expect(error.isTimeout)
        #expect(await eventually { session.runningRequestCount == 0 }, "the session lets it go once its handlers are on their way")
    }

    /// A request suspended and never resumed ends at the deadline, which
    /// says so: it said the server might be slow.
    @Test func aSuspendedRequestEndsAtTheDeadlineSayingItWasSuspended() async throws {
        let attempts = Counter()
        let server = try Self.tricklingServer(attempts: attempts)
        defer { server.shutdown() }
        // Long enough for the first byte (half a second in) to suspend it on
        // a loaded machine: at the AsyncHTTPClient suite's start in CI, 6 s were not.
        let session = TestTransport.makeSession(resourceTimeout: 30)
        let suspended = Latch()
        let result = await response(within: 120) { completion in
            let request = session.request(server.url("/"))
            request.downloadProgress(queue: handlerQueue) { [weak request] _ in
                request?.suspend()
                suspended.arrive()
            }
            request.responseData(queue: handlerQueue, completionHandler: completion)
        }
        #expect(await suspended.wait())
        let error = try #require(result?.error, "the request ended")
        #expect(error.isTimeout)
        #expect(error.localizedDescription.contains("was suspended"), "\(TestTransport.name): \(error.localizedDescription)")
    }

    @Test func theDeadlineIncludesRetries() async throws {
        let attempts = Counter()
        let server = try LoopbackServer { _ in
            attempts.increment()
            return .text("busy", status: 503)
        }
        defer { server.shutdown() }
        let policy = RetryPolicy(retryLimit: 1_000, exponentialBackoffBase: 1, exponentialBackoffScale: 0.2)
        // 10 s: room for a second attempt (0.2 s apart) even when a loaded run
        // stalls the first for seconds (2 s was once too short for any retry).
        let session = TestTransport.makeSession(retryPolicy: policy, resourceTimeout: 10)
        let result = await response(within: 120) {
            session.request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.isTimeout == true)
        #expect(attempts.count > 1, "it did retry")
        #expect(attempts.count < 1_000, "and stopped at the deadline")
    }

    @Test func aFastRequestIsNotAffected() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession(resourceTimeout: 30)
        let result = await response(within: 120) {
            session.request(fixture.url("/json")).responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value?["title"].string == "hello")
    }
}
