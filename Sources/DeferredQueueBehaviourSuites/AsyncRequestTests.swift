import DeferredQueueTesting
import Foundation
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
}
