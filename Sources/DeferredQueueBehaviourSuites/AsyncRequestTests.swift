import DeferredQueueTesting
import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("DataRequest: Deferred and async/await bridges")
struct AsyncRequestTests {
    /// A new session per test, on the transport under test (see TestTransport).
    let session = TestTransport.makeSession()

    struct Item: Decodable, Sendable, Equatable {
        let title: String
        let count: Int
    }

    @Test func serializingBridgesAwaitTheirValues() async throws {
        let fixture = try Fixture()
        #expect(try await session.request(fixture.url("/json")).serializingDecodable(Item.self).value == Item(title: "hello", count: 3))
        #expect(try await session.request(fixture.url("/json")).serializingJSON().value["tags"][0] == "a")
        #expect(try await session.request(fixture.url("/text")).serializingString().value == "héllo wörld")
        #expect(try await session.request(fixture.url("/text")).serializingData().value == Data("héllo wörld".utf8))
        let whole = try await session.request(fixture.url("/status/404")).serializingResponse().value
        #expect(whole.response?.statusCode == 404)
    }

    @Test func serializingErrorsAreHTTPErrors() async throws {
        let fixture = try Fixture()
        await #expect(throws: HTTPError.self) {
            try await session.request(fixture.url("/status/404")).validate().serializingJSON().value
        }
        await #expect(throws: HTTPError.self) {
            try await session.request(fixture.url("/malformed")).serializingJSON().value
        }
    }

    @Test func requestsComposeWithDeferredCombinators() async throws {
        let fixture = try Fixture()
        let both = try await zip(
            session.request(fixture.url("/json")).serializingDecodable(Item.self),
            session.request(fixture.url("/text")).serializingString()
        ).then { item, text in "\(item.title) / \(text)" }.value
        #expect(both == "hello / héllo wörld")
        let ids = try await Deferred.all((0..<20).map { session.request(fixture.url("/id?id=\($0)")).serializingString() }).value
        #expect(ids == (0..<20).map(String.init))
    }

    @Test func aTimeoutOnTheDeferredCancelsTheRequest() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let result = await session.request(fixture.url("/never"), timeout: 600).serializingData().timeout(0.2).result
        guard case .failure(DeferredError.timedOut) = result else {
            Issue.record("expected timedOut, got \(result)")
            return
        }
        #expect(await eventually { session.runningRequestCount == 0 }, "nobody wants the body any more")
    }

    /// A bridge holds a request that waits for `resume()` weakly, as a
    /// handler does: released, the request is freed and never sent, and the
    /// bridge hears that it was abandoned (it would wait forever if its
    /// cancel hook kept the request).
    @Test(arguments: [false, true])
    func aBridgeOnARequestWaitingForResumeLetsItBeFreed(suspendedFirst: Bool) async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let released = WeakList<DataRequest>()
        let bridge: Deferred<Data>
        do {
            let request = suspendedFirst
                ? session.request(fixture.url("/json")).suspend()
                : session.request(fixture.url("/json"), shouldAutomaticallyResume: false)
            released.add(request)
            bridge = request.serializingData()
        }
        #expect(await eventually { released.aliveCount == 0 }, "the request was freed")
        let result = await bridge.timeout(120).result
        #expect(result.failure?.asHTTPError?.kind == "abandoned", "\(result)")
        #expect(fixture.server.requestCount == 0)
    }

    /// Cancelling the bridge of a started request cancels it, whether the
    /// bridge's handler started it or it ran before.
    @Test(arguments: [false, true])
    func cancellingTheBridgeOfAStartedRequestCancelsIt(startedBefore: Bool) async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let request = session.request(fixture.url("/never"), timeout: 600)
        if startedBefore { request.resume() }
        let bridge = request.serializingData()
        bridge.cancel()
        #expect(await eventually { request.isCancelled })
        #expect(await eventually { session.runningRequestCount == 0 })
    }

    /// Alamofire's `automaticallyCancelling:`: `true` (the default) cancels
    /// the request when the Task awaiting the bridge is cancelled; `false`
    /// leaves it running, and the Task receives the real response.
    @Test(arguments: [true, false])
    func cancellingTheAwaitingTaskCancelsTheRequestOnlyWhenAsked(automaticallyCancelling: Bool) async throws {
        let (result, request) = try await awaitFromACancelledTask { session, url in
            let request = session.request(url, timeout: .infinity)
            return (request, request.serializingString(automaticallyCancelling: automaticallyCancelling))
        }
        if automaticallyCancelling {
            #expect(request.isCancelled)
            #expect(result.failure?.asHTTPError?.isExplicitlyCancelledError == true, "\(result)")
            #expect(result.failure?.isExplicitlyCancelledError == true, "read on any Error, as on Alamofire's AFError")
        } else {
            #expect(!request.isCancelled)
            #expect(try result.get() == "late")
        }
    }

    @Test(arguments: [true, false])
    func aDownloadBridgeTakesAutomaticallyCancellingToo(automaticallyCancelling: Bool) async throws {
        let (result, request) = try await awaitFromACancelledTask { session, url in
            let request = session.download(url, timeout: .infinity)
            return (request, request.serializingDownload(using: DataResponseSerializer(), automaticallyCancelling: automaticallyCancelling))
        }
        defer { (request as? DownloadRequest)?.fileURL.map { try? FileManager.default.removeItem(at: $0) } }
        #expect(request.isCancelled == automaticallyCancelling)
        #expect((try? result.get()) == (automaticallyCancelling ? nil : Data("late".utf8)))
    }

    @Test func aWholeResponseBridgeLeftRunningDeliversTheResponse() async throws {
        let (result, request) = try await awaitFromACancelledTask { session, url in
            let request = session.request(url, timeout: .infinity)
            return (request, request.serializingResponse(using: StringResponseSerializer(), automaticallyCancelling: false))
        }
        #expect(!request.isCancelled)
        #expect(try result.get().value == "late")
    }

    /// Awaits the bridge `make` returns from a Task that is cancelled before
    /// it awaits, while the server holds the response back; the server
    /// answers once the Task is about to await, so the cancellation is seen
    /// before the response exists.
    private func awaitFromACancelledTask<Value: Sendable, Kind: Request>(
        _ make: @Sendable (Session, URL) -> (Kind, Deferred<Value>)
    ) async throws -> (Result<Value, any Error>, Kind) {
        let gate = DispatchSemaphore(value: 0)
        let server = try LoopbackServer { _ in
            _ = gate.wait(timeout: .now() + 600)
            return .text("late")
        }
        defer { server.shutdown() }
        let (request, deferred) = make(session, server.url("/"))
        let awaiting = Latch()
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            awaiting.arrive()
            return await deferred.result
        }
        task.cancel()
        #expect(await awaiting.wait())
        gate.signal()
        return (await task.value, request)
    }
}
