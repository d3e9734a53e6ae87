import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("DataRequest: load, progress and leaks")
struct LoadTests {
    /// A new session per test, on the transport under test (see TestTransport).
    let session = TestTransport.makeSession()

    @Test func fiveHundredConcurrentRequestsEachCompleteOnceWithTheirOwnBody() async throws {
        // Megabytes in flight: not beside a test that measures resident memory.
        try await MemoryHeavyWork.exclusively {
            let fixture = try Fixture()
            let count = 500
            let bodies = Recorder<(Int, String)>()
            let done = Latch(count: count)
            for index in 0..<count {
                session.request(fixture.url("/id?id=\(index)")).responseString(queue: handlerQueue) { response in
                    bodies.append((index, response.value ?? "error: \(response.error?.description ?? "?")"))
                    done.arrive()
                }
            }
            #expect(await done.wait(seconds: 120))
            let events = bodies.events
            #expect(events.count == count)
            #expect(Set(events.map(\.0)).count == count, "each request completed exactly once")
            #expect(events.filter { "\($0.0)" != $0.1 }.isEmpty, "each got its own body")
        }
    }

    @Test func eightMebibytesWithMonotonicProgressEndingAtTheTotal() async throws {
        // Megabytes in flight: not beside a test that measures resident memory.
        try await MemoryHeavyWork.exclusively {
            let fixture = try Fixture()
            let progress = Recorder<TransferProgress>()
            let result = await response { handler in
                session.request(fixture.url("/big"))
                    .downloadProgress(queue: handlerQueue) { progress.append($0) }
                    .responseData(queue: handlerQueue, completionHandler: handler)
            }
            #expect(result?.value?.count == Fixture.bigBodySize)
            let steps = progress.events
            #expect(!steps.isEmpty)
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.completed <= $1.completed })
            #expect(steps.last?.completed == Int64(Fixture.bigBodySize))
            #expect(steps.last?.expected == Int64(Fixture.bigBodySize))
            #expect(steps.last?.fraction == 1)
        }
    }

    @Test func noRequestOrSessionLeaksAfterAThousandRequests() async throws {
        // Megabytes in flight: not beside a test that measures resident memory.
        try await MemoryHeavyWork.exclusively {
            let fixture = try Fixture()
            let requests = WeakList<DataRequest>()
            let sessions = WeakList<Session>()
            let done = Latch(count: 1_000)
            do {
                let session = TestTransport.makeSession()
                sessions.add(session)
                for index in 0..<1_000 {
                    let req = session.request(fixture.url(index.isMultiple(of: 10) ? "/status/500" : "/json"))
                        .responseData(queue: handlerQueue) { _ in done.arrive() }
                    requests.add(req)
                }
            }
            #expect(await done.wait(seconds: 120))
            #expect(await eventually { requests.aliveCount == 0 }, "\(requests.aliveCount) requests still alive")
            #expect(await eventually { sessions.aliveCount == 0 }, "the session is released once its requests finished")
        }
    }

    /// A request on a session that only `sessions` (weakly) and the request know.
    private static func request(
        _ url: String, onATemporarySessionIn sessions: WeakList<Session>, shouldAutomaticallyResume: Bool? = nil
    ) -> DataRequest {
        let session = TestTransport.makeSession()
        sessions.add(session)
        return session.request(url, shouldAutomaticallyResume: shouldAutomaticallyResume)
    }

    /// A finished request you keep does not keep its session (and the
    /// session's transport and connections) alive; what it knows stays readable.
    @Test func aFinishedRequestDoesNotKeepItsSessionAlive() async throws {
        let fixture = try Fixture()
        let sessions = WeakList<Session>()
        let request = Self.request(fixture.url("/json"), onATemporarySessionIn: sessions)
        let first = await response { request.responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(first?.value?["count"].int == 3)
        #expect(await eventually { sessions.aliveCount == 0 }, "released once the request finished")
        #expect(request.session == nil)
        #expect(request.state == .finished)
        #expect(request.response?.statusCode == 200)
        #expect(request.cURLDescription().contains(fixture.url("/json")))
        let later = await response { request.responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(later?.value?.contains("count") == true, "a handler chained later still gets the outcome")
    }

    /// A request that waits for `resume()` keeps its session, like a running one.
    @Test func aRequestWaitingToStartKeepsItsSessionAlive() async throws {
        let fixture = try Fixture()
        let sessions = WeakList<Session>()
        let request = Self.request(fixture.url("/json"), onATemporarySessionIn: sessions, shouldAutomaticallyResume: false)
        #expect(sessions.aliveCount == 1)
        #expect(request.session != nil)
        let result = await response { request.resume().responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value?["count"].int == 3)
        #expect(await eventually { sessions.aliveCount == 0 })
    }

    /// Cancelling a request before it started releases its session too.
    @Test func aRequestCancelledBeforeItStartedReleasesItsSession() async throws {
        let fixture = try Fixture()
        let sessions = WeakList<Session>()
        let request = Self.request(fixture.url("/json"), onATemporarySessionIn: sessions, shouldAutomaticallyResume: false)
        request.cancel()
        #expect(await eventually { sessions.aliveCount == 0 })
        let result = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.isExplicitlyCancelledError == true)
    }

    @Test func aTemporarySessionLivesUntilItsRequestsFinish() async throws {
        let fixture = try Fixture()
        let result = await response { handler in
            TestTransport.makeSession().request(fixture.url("/json")).responseJSON(queue: handlerQueue, completionHandler: handler)
        }
        #expect(result?.value?["count"].int == 3, "not cancelled by the session going away")
    }
}
