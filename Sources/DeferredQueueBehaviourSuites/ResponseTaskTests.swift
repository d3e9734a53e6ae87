import DeferredQueueTesting
import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// Alamofire's `DataTask` and `DownloadTask`: the `serializing…` methods
/// return them where only a task type-checks (`.response`, a typed
/// `Result<Value, HTTPError>`), and a ``Deferred`` everywhere else.
@Suite("DataTask and DownloadTask: Alamofire's awaited responses")
struct ResponseTaskTests {
    let session = TestTransport.makeSession()

    struct Item: Decodable, Sendable, Equatable {
        let title: String
        let count: Int
    }

    @Test func theWholeResponseIsAwaitedAsInAlamofire() async throws {
        let fixture = try Fixture()
        let response = await session.request(fixture.url("/json")).serializingDecodable(Item.self).response
        #expect(response.value == Item(title: "hello", count: 3))
        #expect(response.response?.statusCode == 200)
        #expect(response.data?.isEmpty == false)
        let result: Result<String, HTTPError> = await session.request(fixture.url("/text")).serializingString().result
        #expect(try result.get() == "héllo wörld")
        let failed = await session.request(fixture.url("/status/404")).validate().serializingData().response
        #expect(failed.response?.statusCode == 404)
        #expect(failed.error?.kind == "status(404)")
        let custom = await session.request(fixture.url("/text")).serializingResponse(using: StringResponseSerializer()).response
        #expect(custom.value == "héllo wörld")
    }

    /// Without a type that needs a task, the deferred is chosen: code written
    /// for the deferred (`.then`, `.value`, a variable) is unchanged.
    @Test func withoutATaskTypeTheDeferredIsChosen() async throws {
        let fixture = try Fixture()
        let inferred = session.request(fixture.url("/text")).serializingData()
        let deferred: Deferred<Data> = inferred  // Compiles only if inference chose the deferred.
        #expect(try await deferred.value == Data("héllo wörld".utf8))
        let chained = try await session.request(fixture.url("/json")).serializingDecodable(Item.self).then { $0.count }.value
        #expect(chained == 3)
    }

    @Test func cancellingTheTaskCancelsTheRequestAndTheResponseSaysSo() async throws {
        let fixture = try Fixture()
        let request = session.request(fixture.url("/never"), timeout: 600)
        let task: DataTask<Data> = request.serializingData()
        task.cancel()
        let response = await task.response
        #expect(response.error?.isExplicitlyCancelledError == true, "\(response)")
        #expect(request.isCancelled)
        let again = await task.result
        #expect(again.failure?.isExplicitlyCancelledError == true, "every awaiter gets the same response")
    }

    /// `automaticallyCancelling` (default `true`) cancels the request with
    /// the Task awaiting the response, which then carries the cancellation;
    /// `false` leaves it running, and the Task receives the real response.
    @Test(arguments: [true, false])
    func cancellingTheAwaitingTaskCancelsTheRequestOnlyWhenAsked(automaticallyCancelling: Bool) async throws {
        let (response, request) = try await awaitFromACancelledTask { session, url in
            let request = session.request(url, timeout: .infinity)
            let task: DataTask<String> = request.serializingString(automaticallyCancelling: automaticallyCancelling)
            return (request, { await task.response.result })
        }
        #expect(request.isCancelled == automaticallyCancelling)
        if automaticallyCancelling {
            #expect(response.failure?.isExplicitlyCancelledError == true, "\(response)")
        } else {
            #expect(try response.get() == "late")
        }
    }

    @Test(arguments: [true, false])
    func aDownloadTaskTakesAutomaticallyCancellingToo(automaticallyCancelling: Bool) async throws {
        let (response, request) = try await awaitFromACancelledTask { session, url in
            let request = session.download(url, timeout: .infinity)
            let task: DownloadTask<Data> = request.serializingData(automaticallyCancelling: automaticallyCancelling)
            return (request, { await task.result })
        }
        defer { (request as? DownloadRequest)?.fileURL.map { try? FileManager.default.removeItem(at: $0) } }
        #expect(request.isCancelled == automaticallyCancelling)
        #expect((try? response.get()) == (automaticallyCancelling ? nil : Data("late".utf8)))
    }

    @Test func aDownloadsResponseHasItsFile() async throws {
        let fixture = try Fixture()
        let response = await session.download(fixture.url("/json")).serializingDownloadedFileURL().response
        let file = try #require(response.fileURL, "\(response)")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(response.value == file)
        #expect(response.response?.statusCode == 200)
        let decoded = await session.download(fixture.url("/json")).serializingDecodable(Item.self).response
        defer { decoded.fileURL.map { try? FileManager.default.removeItem(at: $0) } }
        #expect(decoded.value == Item(title: "hello", count: 3))
        let cancelled: DownloadTask<URL> = session.download(fixture.url("/never"), timeout: 600).serializingDownloadedFileURL()
        cancelled.cancel()
        #expect(await cancelled.response.error?.isExplicitlyCancelledError == true)
    }

    /// Awaits what `make` returns from a Task cancelled before it awaits,
    /// while the server holds the response back until the Task is about to
    /// await, so the cancellation is seen before the response exists.
    private func awaitFromACancelledTask<Value: Sendable, Kind: Request>(
        _ make: @Sendable (Session, URL) -> (Kind, @Sendable () async -> Result<Value, HTTPError>)
    ) async throws -> (Result<Value, HTTPError>, Kind) {
        let gate = DispatchSemaphore(value: 0)
        let server = try LoopbackServer { _ in
            _ = gate.wait(timeout: .now() + 600)
            return .text("late")
        }
        defer { server.shutdown() }
        let (request, awaitResponse) = make(session, server.url("/"))
        let awaiting = Latch()
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            awaiting.arrive()
            return await awaitResponse()
        }
        task.cancel()
        #expect(await awaiting.wait())
        gate.signal()
        return (await task.value, request)
    }
}
