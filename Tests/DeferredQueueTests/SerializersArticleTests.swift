import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// The examples of the DocC article Serializers.md, run against the loopback server
/// so the article cannot drift from the API. Each test is one example, as written
/// there, with the fixture's URL and (for handlers) `queue: handlerQueue`, since
/// the test runner does not service the main queue.
@Suite("Serializers article examples compile and behave as documented")
struct SerializersArticleTests {
    struct Entry: Decodable, Sendable { let title: String; let count: Int }
    struct Settings: Decodable, Sendable, Equatable { let title: String; let count: Int }

    struct LinesSerializer: ResponseSerializer {
        func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?,
                       error: HTTPError?) throws -> [String] {
            try StringResponseSerializer()
                .serialize(request: request, response: response, data: data, error: error)
                .split(separator: "\n").map(String.init)
        }
    }

    @Test func theOverviewExample() async throws {
        let fixture = try Fixture()
        let url = fixture.url("/json")
        let entry = try await request(url)
            .validate()
            .serializingDecodable(Entry.self, decoder: JSONDecoder())
            .value
        #expect(entry.title == "hello" && entry.count == 3)
    }

    @Test func theEmptyExample() async throws {
        let fixture = try Fixture()
        for url in [fixture.url("/no-content"), fixture.url("/empty")] {
            _ = try await request(url, method: .delete).validate().serializingDecodable(Empty.self).value
        }
    }

    @Test func theEmptyResponseCodesExamples() async throws {
        let fixture = try Fixture()
        let url = fixture.url("/accepted")
        let printed = Recorder<Int>()
        let done = Latch()
        request(url, method: .post)
            .responseData(queue: handlerQueue, emptyResponseCodes: [202]) { response in
                printed.append(response.value?.count ?? -1)   // 0 for an empty 202 Accepted
                done.arrive()
            }
        #expect(await done.wait())
        #expect(printed.events == [0])

        let noContent = fixture.url("/no-content")
        let strict = request(noContent).serializingJSON(emptyResponseCodes: [])   // an empty 204 is an error
        let result = await strict.result
        #expect((try? result.get()) == nil)
        #expect(try await request(noContent).serializingJSON().value == .null, "the default accepts it")
    }

    @Test func thePreprocessorExample() async throws {
        let fixture = try Fixture()
        let url = fixture.url("/xssi")
        let json = try await request(url).serializingJSON(dataPreprocessor: GoogleXSSIPreprocessor()).value
        #expect(json["count"] == 3)
    }

    @Test func theDecoderExample() async throws {
        let fixture = try Fixture()
        let url = fixture.url("/plist")
        let settings = try await request(url)
            .serializingDecodable(Settings.self, decoder: PropertyListDecoder())
            .value
        #expect(settings == Settings(title: "hello", count: 3))
    }

    @Test func theCustomSerializerExample() async throws {
        let fixture = try Fixture()
        let url = fixture.url("/id?id=first%0Asecond")
        let printed = Recorder<[String]>()
        let done = Latch()
        request(url).response(queue: handlerQueue, responseSerializer: LinesSerializer()) { response in
            printed.append(response.value ?? [])
            done.arrive()
        }
        #expect(await done.wait())
        #expect(printed.events == [["first", "second"]])
    }

    @Test func theWholeResponseExample() async throws {
        let fixture = try Fixture()
        var printed: [String] = []
        for url in [fixture.url("/json"), fixture.url("/status/404")] {
            let response = try await request(url).validate()
                .serializingResponse(using: DecodableResponseSerializer<Entry>())
                .value
            switch response.result {
            case .success(let entry): printed.append(entry.title)
            case .failure(let error): printed.append("\(response.response?.statusCode ?? 0) \(error.kind)")
            }
        }
        #expect(printed == ["hello", "404 status(404)"])
    }
}
