import DeferredQueue
import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Alamofire's static accessors and header helpers, under its names.
@Suite("Alamofire accessors: .json, .urlEncodedForm, .data, .googleXSSI, HTTPHeaders.default, HTTPURLResponse.headers, empty-body checks")
struct AlamofireAccessorsTests {
    private struct Login: Encodable, Sendable {
        let user: String
        let remember: Bool
    }

    private struct Entry: Decodable, Equatable, Sendable {
        let title: String
    }

    private let transport = MockTransport { request in
        switch request.url?.path {
        case "/xssi": return .json(")]}',\n" + #"{"title":"hello"}"#)
        default: return .json(#"{"title":"hello"}"#)
        }
    }

    @Test func parameterEncodersByName() async throws {
        let session = Session(transport: transport)
        let login = Login(user: "ann", remember: true)
        _ = try await session.request("http://api.invalid/json", method: .post, parameters: login, encoder: .json).serializingData().value
        _ = try await session.request("http://api.invalid/form", method: .post, parameters: login, encoder: .urlEncodedForm).serializingData().value
        _ = try await session.request(
            "http://api.invalid/query", method: .post, parameters: login, encoder: .urlEncodedForm(destination: .queryString)
        ).serializingData().value
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        _ = try await session.request("http://api.invalid/sorted", method: .post, parameters: login, encoder: .json(encoder: sorted))
            .serializingData().value
        let requests = transport.requests
        try #require(requests.count == 4)
        #expect(requests[0].value(forHTTPHeaderField: "Content-Type") == "application/json")
        let body = try JSONDecoder().decode([String: AnyCodableScalar].self, from: requests[0].httpBody ?? Data())
        #expect(body == ["user": .string("ann"), "remember": .bool(true)])
        #expect(requests[1].httpBody.map { String(decoding: $0, as: UTF8.self) } == "remember=1&user=ann")
        #expect(requests[2].url?.query == "remember=1&user=ann")
        #expect(requests[2].httpBody == nil)
        #expect(requests[3].httpBody.map { String(decoding: $0, as: UTF8.self) } == #"{"remember":true,"user":"ann"}"#)
    }

    @Test func serializersAndPreprocessorsByName() async throws {
        let session = Session(transport: transport)
        let data = try await session.request("http://api.invalid/").serializingResponse(using: .data).value
        #expect(data.value == Data(#"{"title":"hello"}"#.utf8))
        let text = try await session.request("http://api.invalid/").serializingResponse(using: .string).value
        #expect(text.value == #"{"title":"hello"}"#)
        let json = try await session.request("http://api.invalid/").serializingResponse(using: .json).value
        #expect(json.value?["title"] == "hello")
        let entry = try await session.request("http://api.invalid/").serializingResponse(using: .decodable(of: Entry.self)).value
        #expect(entry.value == Entry(title: "hello"))
        let guarded = try await session.request("http://api.invalid/xssi").serializing(
            DecodableResponseSerializer<Entry>(dataPreprocessor: .googleXSSI)
        ).value
        #expect(guarded == Entry(title: "hello"))
        let raw = try await session.request("http://api.invalid/xssi").serializing(
            DataResponseSerializer(dataPreprocessor: .passthrough)
        ).value
        #expect(String(decoding: raw, as: UTF8.self).hasPrefix(")]}'"))
    }

    /// The factory forms take every setting the initialisers take.
    @Test func serializerFactoriesPassTheirSettingsOn() async throws {
        let session = Session(transport: transport)
        let stripped = try await session.request("http://api.invalid/xssi")
            .serializingResponse(using: .data(dataPreprocessor: .googleXSSI)).value
        #expect(stripped.value == Data(#"{"title":"hello"}"#.utf8))
        let latin1 = try await session.request("http://api.invalid/")
            .serializingResponse(using: .string(dataPreprocessor: .googleXSSI, encoding: .isoLatin1)).value
        #expect(latin1.value == #"{"title":"hello"}"#)
        let entry = try await session.request("http://api.invalid/xssi")
            .serializingResponse(using: .decodable(of: Entry.self, dataPreprocessor: .googleXSSI)).value
        #expect(entry.value == Entry(title: "hello"))
        let empty: DataResponseSerializer = .data(emptyResponseCodes: [200], emptyRequestMethods: [.get])
        #expect(empty.emptyResponseCodes == [200] && empty.emptyRequestMethods == [.get])
    }

    @Test func defaultHeadersAreWhatTheSessionSends() async throws {
        #expect(HTTPHeaders.default.map(\.name) == ["Accept-Encoding", "Accept-Language", "User-Agent"])
        #expect(HTTPHeader.defaultAcceptEncoding.value == "gzip, deflate")
        let session = Session(transport: transport)
        _ = try await session.request("http://api.invalid/").serializingData().value
        let sent = try #require(transport.requests.first)
        #expect(sent.value(forHTTPHeaderField: "User-Agent") == HTTPHeader.defaultUserAgent.value)
        #expect(sent.value(forHTTPHeaderField: "Accept-Language") == HTTPHeader.defaultAcceptLanguage.value)
        #expect(HTTPHeader.defaultUserAgent.value.contains("DeferredQueue/\(DeferredQueueInfo.version)"))
    }

    @Test func sortingOrdersByNameIgnoringCaseAndKeepsRepeatedFieldsInOrder() {
        var headers = HTTPHeaders(keepingDuplicates: [
            HTTPHeader(name: "x-b", value: "1"), HTTPHeader(name: "Accept", value: "a"),
            HTTPHeader(name: "X-B", value: "2"), HTTPHeader(name: "content-type", value: "c"),
        ])
        let sorted = headers.sorted()
        #expect(sorted.map(\.name) == ["Accept", "content-type", "x-b", "X-B"])
        #expect(sorted.values(for: "x-b") == ["1", "2"])
        #expect(headers.map(\.name) == ["x-b", "Accept", "X-B", "content-type"], "sorted() leaves the original alone")
        headers.sort()
        #expect(headers == sorted)
    }

    @Test func aResponsesHeadersAsHTTPHeaders() throws {
        let url = try #require(URL(string: "http://api.invalid/"))
        let response = try #require(HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "text/plain", "X-Trace": "7"]
        ))
        #expect(response.headers.value(for: "content-type") == "text/plain")
        #expect(response.headers["X-Trace"] == "7")
        #expect(response.headers.count == 2)
    }

    /// Alamofire's two halves of `emptyResponseAllowed`, and its
    /// `any ResponseSerializer<T>` (a primary associated type).
    @Test func aSerializerSaysWhichEmptyBodiesItAllows() throws {
        let serializer: any ResponseSerializer<Data> = DataResponseSerializer(emptyResponseCodes: [204], emptyRequestMethods: [.head])
        let url = try #require(URL(string: "http://api.invalid/"))
        var head = URLRequest(url: url)
        head.httpMethod = "HEAD"
        #expect(serializer.requestAllowsEmptyResponseData(head) == true)
        #expect(serializer.requestAllowsEmptyResponseData(URLRequest(url: url)) == false)
        #expect(serializer.requestAllowsEmptyResponseData(nil) == nil)
        let noContent = HTTPURLResponse(url: url, statusCode: 204, httpVersion: nil, headerFields: nil)
        let ok = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)
        #expect(serializer.responseAllowsEmptyResponseData(noContent) == true)
        #expect(serializer.responseAllowsEmptyResponseData(ok) == false)
        #expect(serializer.responseAllowsEmptyResponseData(nil) == nil)
        #expect(serializer.emptyResponseAllowed(forRequest: URLRequest(url: url), response: noContent))
    }

    @Test func aGETWithABodyFailsURLRequestValidate() throws {
        let url = try #require(URL(string: "http://api.invalid/"))
        var get = URLRequest(url: url)
        try get.validate()
        get.httpBody = Data("x".utf8)
        #expect {
            try get.validate()
        } throws: { error in
            guard case .urlRequestValidationFailed(.bodyDataInGETRequest(let body))? = error as? HTTPError else { return false }
            return body == Data("x".utf8)
        }
        var post = get
        post.httpMethod = "POST"
        try post.validate()
        let disposition: Request.ResponseDisposition = .cancel
        #expect(disposition == .cancel)
    }

    @Test func multipartFormsUpToTenMegabytesAreEncodedInMemory() {
        #expect(MultipartFormData.encodingMemoryThreshold == 10_000_000)
    }
}

/// A JSON string or boolean, to compare an encoded body.
private enum AnyCodableScalar: Decodable, Equatable {
    case string(String)
    case bool(Bool)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) { self = .bool(flag) } else { self = .string(try container.decode(String.self)) }
    }

}
