import Dispatch
import Foundation
import TestSupport
import Testing
@testable import DeferredQueue

/// The README's examples, run against the loopback server, so the
/// documentation cannot drift from the API.
@Suite("README examples compile and behave as documented")
struct ReadmeExampleTests {
    struct Entry: Decodable, Sendable { let title: String; let count: Int }

    @Test func theFirstScreenExample() async throws {
        let fixture = try Fixture()
        let url = fixture.url("/json")
        let order = Recorder<String>()
        let done = Latch(count: 2)
        request(url)
            .validate()
            .responseDecodable(of: Entry?.self, queue: handlerQueue) { response in
                order.append(response.value??.title ?? "no bookmarks yet")
                done.arrive()
            }
            .responseString(queue: handlerQueue) { response in
                order.append("\(response.data?.count ?? 0) bytes in \(response.timing.duration >= 0 ? "some" : "?") s")
                done.arrive()
            }
        #expect(await done.wait())
        #expect(order.events == ["hello", "44 bytes in some s"])
        let entry = try await request(url).validate().serializingDecodable(Entry.self).value
        #expect(entry.count == 3)
    }

    @Test func theDeferredTour() async throws {
        let fixture = try Fixture()
        let (deferred, resolver) = Deferred<Data>.pending()
        let logged = Recorder<String>()
        let chain = deferred
            .then { data in try JSON(parsing: data) }
            .then { json in request(fixture.url("/id?id=\(json["count"].int ?? 0)")).serializingString() }
            .recover { _ in "fallback" }
            .catch { error in logged.append("\(error)") }
            .finally { logged.append("finally") }
        resolver.fulfill(Data(#"{"count": 7}"#.utf8))
        #expect(try await chain.value == "7")
        #expect(logged.events == ["finally"])

        let parsed = Deferred(catching: try JSON(parsing: Data("[1]".utf8)))
        #expect(try await parsed.value == [1])
        let limited = Deferred.retry(attempts: 3, delay: 0.01) { request(fixture.url("/text")).serializingData() }
        #expect(try await limited.timeout(30).value == Data("héllo wörld".utf8))
    }

    @Test func theSessionExample() async throws {
        let fixture = try Fixture()
        let session = Session(configuration: .default, retryPolicy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        let seen = Recorder<String>()
        let done = Latch()
        session.request(fixture.url("/json"), method: .get,
                        headers: [.userAgent("MyApp/1.0"), .accept("application/json")], timeout: 15)
            .downloadProgress(queue: handlerQueue) { progress in seen.append("progress \(progress.fraction ?? 0)") }
            .response(queue: handlerQueue) { response in seen.append("status \(response.response?.statusCode ?? 0)") }
            .validate()
            .responseJSON(queue: handlerQueue) { response in
                switch response.result {
                case .success(let json): seen.append("\(json["title"].string ?? "untitled") \(json["count"].int ?? 0)")
                case .failure(let error): seen.append("\(error)")
                }
                done.arrive()
            }
        #expect(await done.wait())
        #expect(seen.events.suffix(2) == ["status 200", "hello 3"])
        #expect(seen.events.first == "progress 1.0")
    }
}
