import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// When a request's transfer starts: at its first handler, at `resume()`, or,
/// with neither, when it is released (fire and forget) — and how that choice
/// decides between a collected and a streamed body.
@Suite("DataRequest: when the transfer starts")
struct RequestStartTests {
    /// A new session per test, on the transport under test (see TestTransport).
    let session = TestTransport.makeSession()

    @Test func aRequestStartsWithItsFirstHandlerNotBefore() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let req = session.request(fixture.url("/json")).validate()
        // Nothing asked for the response yet: no task exists.
        #expect(session.runningRequestCount == 0)
        #expect(fixture.server.requestCount == 0)
        let result = await response { req.responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value?["count"].int == 3)
        #expect(fixture.server.requestCount == 1)
    }

    @Test func resumeStartsARequestThatHasNoHandlerYet() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let req = session.request(fixture.url("/json")).resume().resume()
        #expect(await eventually { fixture.server.requestCount == 1 })
        // A handler added later still gets the one response, without a second transfer.
        let result = await response { req.responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value?.contains("hello") == true)
        #expect(fixture.server.requestCount == 1)
    }

    @Test func aRequestReleasedWithoutHandlersIsStillSent() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        _ = session.request(fixture.url("/echo"), method: .post, body: Data("ping".utf8))
        #expect(await eventually { fixture.server.requestCount == 1 }, "fire and forget: the request went out")
    }

    /// A handler holds a request that was never started weakly: a request
    /// that waits for `resume()` (made so, or suspended before its first
    /// handler) and is released is freed, never sent, and its handlers hear
    /// that it was abandoned (they would wait forever if they kept it).
    @Test(arguments: [false, true])
    func aRequestWaitingForResumeThatIsReleasedIsFreedAndItsHandlersTold(suspendedFirst: Bool) async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        weak var released: DataRequest?
        let result = await response { done in
            let req = suspendedFirst
                ? session.request(fixture.url("/json")).suspend()
                : session.request(fixture.url("/json"), shouldAutomaticallyResume: false)
            released = req
            req.responseData(queue: handlerQueue, completionHandler: done)
        }
        #expect(result?.error?.kind == "abandoned")
        #expect(released == nil, "the request was freed")
        #expect(fixture.server.requestCount == 0)
    }

    @Test func aRequestCancelledBeforeItStartsIsNeverSent() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        do {
            let req = session.request(fixture.url("/json"))
            req.cancel()
            let result = await response { req.responseData(queue: handlerQueue, completionHandler: $0) }
            #expect(result?.error?.kind == "cancelled")
        }
        // Released now, cancelled and unstarted: it must not go out. A later
        // request of the same session reaches the server alone.
        let after = await response { session.request(fixture.url("/json")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(after?.value != nil)
        #expect(fixture.server.requestCount == 1)
        #expect(await eventually { session.runningRequestCount == 0 }, "the session lets it go once its handlers are on their way")
    }

    @Test func aProgressHandlerAddedAfterTheStartGetsOneFinalUpdate() async throws {
        let fixture = try Fixture()
        let progress = Recorder<TransferProgress>()
        let result = await response { handler in
            // The response handler starts the request with a collected body.
            session.request(fixture.url("/big"))
                .responseData(queue: handlerQueue, completionHandler: handler)
                .downloadProgress(queue: handlerQueue) { progress.append($0) }
        }
        #expect(result?.value?.count == Fixture.bigBodySize)
        // The update is dispatched to the same serial queue before the
        // response handler, so it has been recorded by now.
        #expect(progress.events.count == 1)
        #expect(progress.events.first?.completed == Int64(Fixture.bigBodySize))
        #expect(progress.events.first?.fraction == 1)
    }

    @Test func aProgressHandlerAddedFirstSeesTheBodyArriveInSteps() async throws {
        let fixture = try Fixture()
        let progress = Recorder<TransferProgress>()
        let result = await response { handler in
            session.request(fixture.url("/big"))
                .downloadProgress(queue: handlerQueue) { progress.append($0) }
                .responseData(queue: handlerQueue, completionHandler: handler)
        }
        #expect(result?.value?.count == Fixture.bigBodySize)
        // 8 MiB cannot arrive in one read from a socket: streamed, not collected.
        #expect(progress.events.count > 1)
        #expect(progress.events.last?.completed == Int64(Fixture.bigBodySize))
    }
}
