import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// The public serializers behind `response…` and `serializing…`: empty bodies,
/// preprocessors, decoders and the errors they give. The session's, judged
/// once, on MockTransport (a `HEAD` and a 204 or 205 come with no body, as
/// from a server).
@Suite("Serializers: empty bodies, preprocessors, decoders and their errors")
struct SerializerTests {
    /// A new fixture per test: scripted replies, and a session on them.
    let fixture = PolicyFixture()
    var session: Session { fixture.session }

    struct Item: Decodable, Sendable, Equatable {
        let title: String
        let count: Int
    }

    /// A type that can stand for an empty body.
    struct Receipt: Decodable, Sendable, Equatable, EmptyResponse {
        let id: Int
        static func emptyValue() -> Receipt { Receipt(id: 0) }
    }

    // MARK: Empty bodies

    @Test func emptyDecodesFromAnEmpty200AndFromNoContent() async throws {
        let ok = await response {
            session.request(fixture.url("/empty"), method: .post).responseDecodable(of: Empty.self, queue: handlerQueue, completionHandler: $0)
        }
        #expect(ok?.value == Empty.value)
        let noContent = try await session.request(fixture.url("/no-content"), method: .delete).serializingDecodable(Empty.self).value
        #expect(noContent == .value)
        let object = try await session.request(fixture.url("/json")).serializingDecodable(Empty.self).value
        #expect(object == .value, "a body is decoded as usual, and Empty accepts any object")
    }

    @Test func emptyStillFailsWhenValidationRejectsTheResponse() async throws {
        let rejected = await response {
            session.request(fixture.url("/status/404")).validate().responseDecodable(of: Empty.self, queue: handlerQueue, completionHandler: $0)
        }
        #expect(rejected?.error?.kind == "status(404)")
    }

    @Test func anEmptyResponseTypeDecodesFromAnEmptyBodyOnlyWhereEmptyIsAllowed() async throws {
        for path in ["/no-content", "/reset-content"] {
            #expect(try await session.request(fixture.url(path)).serializingDecodable(Receipt.self).value == Receipt(id: 0))
        }
        let head = await response {
            session.request(fixture.url("/empty"), method: .head).responseDecodable(of: Receipt.self, queue: handlerQueue, completionHandler: $0)
        }
        #expect(head?.value == Receipt(id: 0))
        let emptyOK = await response {
            session.request(fixture.url("/empty")).responseDecodable(of: Receipt.self, queue: handlerQueue, completionHandler: $0)
        }
        #expect(emptyOK?.error?.kind == "emptyBody")
    }

    @Test func aTypeThatCannotBeEmptyFailsClearlyOnNoContent() async throws {
        let result = await session.request(fixture.url("/no-content")).serializingDecodable(Item.self).result
        guard case .failure(let error as HTTPError) = result else {
            Issue.record("expected an HTTPError, got \(result)")
            return
        }
        #expect(error.kind == "invalidEmpty")
        #expect(error.description.contains("Item") && error.description.contains("EmptyResponse"), "\(error)")
    }

    @Test func dataStringAndJSONTreatAnAllowedEmptyBodyAsEmptyValues() async throws {
        #expect(try await session.request(fixture.url("/reset-content")).serializingData().value == Data())
        #expect(try await session.request(fixture.url("/reset-content")).serializingString().value == "")
        #expect(try await session.request(fixture.url("/no-content")).serializingJSON().value == .null)
        #expect(try await session.request(fixture.url("/json"), method: .head).serializingJSON().value == .null)
    }

    @Test func emptyResponseCodesCanBeWidenedOrNarrowed() async throws {
        let accepted = fixture.url("/accepted")
        #expect(try await session.request(accepted).serializingData(emptyResponseCodes: [202]).value == Data())
        #expect(try await session.request(accepted).serializingString(emptyResponseCodes: [202]).value == "")
        let data = await response { session.request(accepted).responseData(queue: handlerQueue, emptyResponseCodes: [202], completionHandler: $0) }
        #expect(data?.value == Data())
        let receipt = await response {
            session.request(accepted).responseDecodable(of: Receipt.self, queue: handlerQueue, emptyResponseCodes: [202], completionHandler: $0)
        }
        #expect(receipt?.value == Receipt(id: 0))
        let strictJSON = await response {
            session.request(fixture.url("/no-content")).responseJSON(queue: handlerQueue, emptyResponseCodes: [], completionHandler: $0)
        }
        #expect(strictJSON?.error?.kind == "emptyBody")
        let noHead = await response {
            session.request(fixture.url("/json"), method: .head).responseString(queue: handlerQueue, emptyRequestMethods: [], completionHandler: $0)
        }
        #expect(noHead?.error?.kind == "emptyBody")
    }

    @Test func emptyResponseAllowedLooksAtTheMethodAndTheStatus() throws {
        let url = try #require(URL(string: "http://127.0.0.1/"))
        func answer(_ code: Int) -> HTTPURLResponse? { HTTPURLResponse(url: url, statusCode: code, httpVersion: nil, headerFields: nil) }
        var head = URLRequest(url: url)
        head.httpMethod = "HEAD"
        let get = URLRequest(url: url)
        let serializer = DataResponseSerializer()
        #expect(serializer.emptyResponseAllowed(forRequest: head, response: answer(200)))
        #expect(serializer.emptyResponseAllowed(forRequest: get, response: answer(204)))
        #expect(!serializer.emptyResponseAllowed(forRequest: get, response: answer(200)))
        #expect(!serializer.emptyResponseAllowed(forRequest: nil, response: nil))
        let custom = DataResponseSerializer(emptyResponseCodes: [200], emptyRequestMethods: [])
        #expect(custom.emptyResponseAllowed(forRequest: get, response: answer(200)))
        #expect(!custom.emptyResponseAllowed(forRequest: head, response: answer(204)))
    }

    // MARK: Errors name the serializer

    @Test func anEmptyBodyErrorNamesTheSerializerThatNeededOne() async throws {
        let url = fixture.url("/empty")
        let failures: [(String, Result<Void, any Error>)] = [
            ("DataResponseSerializer", await session.request(url).serializingData().result.map { _ in }),
            ("StringResponseSerializer", await session.request(url).serializingString().result.map { _ in }),
            ("JSONResponseSerializer", await session.request(url).serializingJSON().result.map { _ in }),
            ("DecodableResponseSerializer<Item>", await session.request(url).serializingDecodable(Item.self).result.map { _ in }),
        ]
        for (name, result) in failures {
            guard case .failure(let error as HTTPError) = result,
                  case .responseSerializationFailed(.inputDataNilOrZeroLength(let serializer)) = error else {
                Issue.record("\(name): expected an empty-body failure, got \(result)")
                continue
            }
            #expect(serializer == name)
            #expect(error.description.contains(name) && error.description.contains("emptyResponseCodes"), "\(error)")
            #expect(!error.description.contains("JSON or a Decodable"), "the old one-size message is gone")
        }
    }

    @Test func aDecodingErrorNoLongerAssumesJSON() async throws {
        let result = await session.request(fixture.url("/plist")).serializingDecodable([Item].self, decoder: PropertyListDecoder()).result
        guard case .failure(let error as HTTPError) = result else {
            Issue.record("a dictionary is not an array: \(result)")
            return
        }
        #expect(error.kind == "decoding")
        #expect(error.description.contains("response body does not match"), "\(error)")
        #expect(!error.description.contains("JSON"), "a property list is not JSON: \(error)")
    }

    // MARK: Preprocessors and decoders

    @Test func theXSSIPreprocessorStripsGooglesGuardLine() async throws {
        let url = fixture.url("/xssi")
        let json = try await session.request(url).serializingJSON(dataPreprocessor: GoogleXSSIPreprocessor()).value
        #expect(json["title"] == "hello")
        let item = await response {
            session.request(url).responseDecodable(of: Item.self, queue: handlerQueue, dataPreprocessor: GoogleXSSIPreprocessor(), completionHandler: $0)
        }
        #expect(item?.value == Item(title: "hello", count: 3))
        let unprocessed = await response { session.request(url).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(unprocessed?.error?.kind == "jsonSyntax", "without the preprocessor the guard line is not JSON")
        let plain = Data(#"{"a":1}"#.utf8)
        #expect(GoogleXSSIPreprocessor().preprocess(plain) == plain, "a body without the guard passes unchanged")
        #expect(GoogleXSSIPreprocessor().preprocess(Data(")]}',\n[]".utf8)) == Data("[]".utf8))
    }

    @Test func aThrowingPreprocessorFailsAsCustomSerialization() async throws {
        struct Refused: Error {}
        struct Refusing: DataPreprocessor {
            func preprocess(_ data: Data) throws -> Data { throw Refused() }
        }
        let result = await response {
            session.request(fixture.url("/text")).responseString(queue: handlerQueue, dataPreprocessor: Refusing(), completionHandler: $0)
        }
        #expect(result?.error?.kind == "customSerialization")
        #expect(result?.error?.underlyingError is Refused)
    }

    @Test func aPropertyListDecodesThroughTheDecodableSerializer() async throws {
        let serializer = DecodableResponseSerializer<Item>(decoder: PropertyListDecoder())
        let serialized = await session.request(fixture.url("/plist")).serializingResponse(using: serializer).result
        let item = try serialized.get().result.get()
        #expect(item == Item(title: "hello", count: 3))
        let handled = await response {
            session.request(fixture.url("/plist"))
                .responseDecodable(of: Item.self, queue: handlerQueue, decoder: PropertyListDecoder(), completionHandler: $0)
        }
        #expect(handled?.value == Item(title: "hello", count: 3))
    }

    @Test func existingCallSitesWithAJSONDecoderStillCompileAndDecode() async throws {
        struct Dated: Decodable, Sendable { let when: Date }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let query = try #require(#"{"when":86400}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let url = fixture.url("/id?id=" + query)
        let dated = try await session.request(url).serializingDecodable(Dated.self, decoder: decoder).value
        #expect(dated.when == Date(timeIntervalSince1970: 86400))
    }
}
