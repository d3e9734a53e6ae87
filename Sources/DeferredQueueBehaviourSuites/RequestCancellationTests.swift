import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("DataRequest: cancellation")
struct RequestCancellationTests {
    /// A new session per test, on the transport under test (see TestTransport).
    let session = TestTransport.makeSession()

    @Test func cancelBeforeStartGivesEveryHandlerCancelledOnce() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let kinds = Recorder<String>()
        let done = Latch(count: 3)
        let req = session.request(fixture.url("/json"))
        req.cancel()
        req.cancel()
        req.response(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
            .responseJSON(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
            .responseString(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await done.wait())
        #expect(kinds.events == ["cancelled", "cancelled", "cancelled"])
        #expect(await eventually { session.runningRequestCount == 0 }, "the task was cancelled too")
    }

    @Test func cancelMidBodyStopsTheTask() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let progressed = Latch()
        let req = session.request(fixture.url("/slow"))
            .downloadProgress(queue: handlerQueue) { _ in if progressed.remaining > 0 { progressed.arrive() } }
        #expect(await progressed.wait(), "some of the body arrived")
        let result = await response { handler in
            req.responseData(queue: handlerQueue, completionHandler: handler)
            req.cancel()
        }
        #expect(result?.error?.kind == "cancelled")
        // As in Alamofire: the head had arrived, so the handler gets it.
        #expect(result?.response?.statusCode == 200)
        #expect(result?.request?.url == req.request?.url)
        #expect(await eventually { session.runningRequestCount == 0 })
    }

    @Test func cancelBeforeTheHeadGivesNoResponse() async throws {
        let fixture = try Fixture()
        let req = session.request(fixture.url("/never"))
        let result = await response { handler in
            req.responseData(queue: handlerQueue, completionHandler: handler)
            req.cancel()
        }
        #expect(result?.error?.kind == "cancelled")
        #expect(result?.response == nil)
    }

    @Test func aDownloadOrStreamCancelledMidBodyStillCarriesTheHead() async throws {
        let fixture = try Fixture()
        let download = session.download(fixture.url("/slow"))
        let downloaded = Latch()
        download.downloadProgress(queue: handlerQueue) { _ in if downloaded.remaining > 0 { downloaded.arrive() } }
        #expect(await downloaded.wait(), "some of the body arrived")
        let cancelledDownload = await downloadResponse { handler in
            download.responseURL(queue: handlerQueue, completionHandler: handler)
            download.cancel()
        }
        #expect(cancelledDownload?.error?.kind == "cancelled")
        #expect(cancelledDownload?.response?.statusCode == 200)

        let stream = session.streamRequest(fixture.url("/slow"))
        let streamed = Latch()
        let completion = Recorder<DataStreamRequest.Completion>()
        let completed = Latch()
        stream.responseStream(on: handlerQueue) { event in
            switch event.event {
            case .stream: if streamed.remaining > 0 { streamed.arrive() }
            case .complete(let end): completion.append(end); completed.arrive()
            }
        }
        #expect(await streamed.wait(), "some of the stream arrived")
        stream.cancel()
        #expect(await completed.wait())
        #expect(completion.events.first?.error?.kind == "cancelled")
        #expect(completion.events.first?.response?.statusCode == 200)
    }

    @Test func cancelAfterCompletionChangesNothing() async throws {
        let fixture = try Fixture()
        let first = Latch()
        let req = session.request(fixture.url("/json")).responseData(queue: handlerQueue) { _ in first.arrive() }
        #expect(await first.wait())
        req.cancel()
        let later = await response { req.responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(later?.value?["title"] == "hello")
    }

    @Test func cancelRacingCompletionGivesEachHandlerExactlyOneOutcome() async throws {
        let fixture = try Fixture()
        let outcomes = Recorder<String>()
        let iterations = 200
        let done = Latch(count: iterations * 2)
        for index in 0..<iterations {
            let req = session.request(fixture.url("/json"))
                .responseData(queue: handlerQueue) { outcomes.append($0.error?.kind ?? "ok"); done.arrive() }
                .responseJSON(queue: handlerQueue) { outcomes.append($0.error?.kind ?? "ok"); done.arrive() }
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(index * 37 % 3_000)) { req.cancel() }
        }
        #expect(await done.wait())
        // Any leftover duplicate would land after this point.
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(outcomes.count == iterations * 2)
        #expect(Set(outcomes.events).isSubset(of: ["ok", "cancelled"]))
    }

    @Test func cancellingTheAwaitingTaskCancelsTheURLSessionTask() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        // Started without a handler, so the task runs before anyone awaits.
        let req = session.request(fixture.url("/never"), timeout: 600).resume()
        #expect(await eventually { session.runningRequestCount == 1 })
        let waiter = Task { try await req.serializingData().value }
        waiter.cancel()
        await #expect(throws: (any Error).self) { try await waiter.value }
        #expect(await eventually { session.runningRequestCount == 0 }, "the never-answered task was cancelled")
        let handler = await response { req.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(handler?.error?.kind == "cancelled")
    }

    @Test func cancellingASerializingDeferredCancelsTheRequest() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let req = session.request(fixture.url("/never"), timeout: 600)
        let deferred = req.serializingJSON()
        deferred.cancel()
        #expect(await eventually { session.runningRequestCount == 0 })
        let handler = await response { req.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(handler?.error?.kind == "cancelled")
    }
}
