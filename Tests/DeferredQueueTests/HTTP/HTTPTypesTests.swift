import Foundation
import TestSupport
import Testing

@testable import DeferredQueue

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTP value types")
struct HTTPTypesTests {
    // MARK: HTTPMethod

    @Test func methodsKeepTheirNamesAndKnowIdempotency() {
        #expect(HTTPMethod.get.rawValue == "GET" && HTTPMethod.connect.rawValue == "CONNECT" && HTTPMethod.query.rawValue == "QUERY")
        let custom: HTTPMethod = "PROPFIND"
        #expect(custom == HTTPMethod(rawValue: "PROPFIND") && custom.description == "PROPFIND")
        let idempotent: [HTTPMethod] = [.get, .head, .put, .delete, .options, .trace, .query]
        #expect(idempotent.allSatisfy { $0.isIdempotent })
        #expect(![HTTPMethod.post, .patch, .connect, custom].contains { $0.isIdempotent })
        #expect(HTTPMethod(rawValue: "get") != .get)
    }

    // MARK: HTTPHeaders

    @Test func headerNamesAreCaseInsensitive() {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        headers["CONTENT-type"] = "text/plain"
        #expect(headers.count == 1)
        #expect(headers.map(\.name) == ["CONTENT-type"])
        #expect(headers["Content-Type"] == "text/plain")
        headers["content-TYPE"] = nil
        #expect(headers.isEmpty)
        #expect(headers["Content-Type"] == nil)
        #expect(headers["Content-Typ"] == nil)
    }

    @Test func headersKeepInsertionOrderAndUpdateInPlace() {
        var headers: HTTPHeaders = ["B": "1", "A": "2", "C": "3"]
        headers.add(name: "D", value: "4")
        headers.update(name: "a", value: "two")
        #expect(headers.map(\.description) == ["B: 1", "a: two", "C: 3", "D: 4"])
        headers.remove(name: "b")
        #expect(headers.map(\.name) == ["a", "C", "D"])
        #expect(headers.description == "a: two\nC: 3\nD: 4")
    }

    /// Alamofire's `testHeadersAreStoreUniquelyByCaseInsensitiveName`: every
    /// way of making or adding to a list keeps one field per name, so that
    /// `headers.add(.authorization(…))` never sends two credentials.
    @Test func aNameOccursOnceHoweverTheListIsMade() {
        let fields = [HTTPHeader(name: "key", value: ""), HTTPHeader(name: "Key", value: ""), HTTPHeader(name: "KEY", value: "")]
        let literal: HTTPHeaders = [.init(name: "key", value: ""), .init(name: "Key", value: ""), .init(name: "KEY", value: "")]
        #expect(HTTPHeaders(fields).count == 1)
        #expect(literal.count == 1)
        var added = HTTPHeaders()
        added.add(.authorization(bearerToken: "old"))
        added.add(name: "X-Other", value: "x")
        added.add(.authorization(bearerToken: "new"))
        #expect(added.map(\.value) == ["Bearer new", "x"])
        #expect(HTTPHeaders([.init(name: "A", value: "1"), .init(name: "B", value: "2"), .init(name: "a", value: "3")])
            .map(\.description) == ["a: 3", "B: 2"], "first position, last value")
        #expect(HTTPHeaders(keepingDuplicates: fields).count == 3)
    }

    @Test func appendKeepsDuplicatesAndReadingJoinsThem() {
        var headers = HTTPHeaders()
        headers.append(.init(name: "Accept", value: "text/html"))
        headers.append(.init(name: "X-Other", value: "x"))
        headers.append(.init(name: "accept", value: "application/json"))
        #expect(headers.count == 3)
        #expect(headers.values(for: "ACCEPT") == ["text/html", "application/json"])
        #expect(headers["Accept"] == "text/html, application/json")
        #expect(headers.dictionary == ["Accept": "text/html, application/json", "X-Other": "x"])
        headers.update(.accept("*/*"))
        #expect(headers.map(\.description) == ["Accept: */*", "X-Other: x"])
        headers.append(.init(name: "accept", value: "a"))
        headers.remove(name: "Accept")
        #expect(headers.map(\.name) == ["X-Other"])
    }

    /// A server chooses how many fields a head has (AsyncHTTPClient lets
    /// 65,534 through): making a list, reading a name and making the
    /// dictionary an `HTTPURLResponse` is made from take time in proportion
    /// to the fields, not to their number squared (minutes, before: the work
    /// runs on a thread of its own, so that a regression fails at the
    /// deadline rather than holding the run).
    @Test func manyFieldsAreReadInProportionToTheirNumber() async {
        let done = Latch()
        DispatchQueue.global().async {
            Self.readManyFields()
            done.arrive()
        }
        #expect(await done.wait(seconds: 60))
    }

    private static func readManyFields() {
        let count = 50_000
        let distinct = (0..<count).map { HTTPHeader(name: "X-F\($0)", value: "v") }
        let repeated = (0..<count).map { HTTPHeader(name: $0.isMultiple(of: 2) ? "X-Same" : "x-same", value: "\($0 % 10)") }
        let head = HTTPHeaders(keepingDuplicates: distinct + repeated)
        let dictionary = head.dictionary
        #expect(dictionary.count == count + 1)
        #expect(dictionary["X-F49999"] == "v")
        let joined = (0..<count).map { "\($0 % 10)" }.joined(separator: ", ")
        #expect(dictionary["X-Same"] == joined)
        #expect(head["X-SAME"] == joined)
        #expect(HTTPHeaders(distinct + repeated).count == count + 1)
        #expect(HTTPHeaders(dictionary).count == count + 1)
        #expect(Array(HTTPHeaders(distinct + repeated)).last == HTTPHeader(name: "x-same", value: "9"), "the last field's spelling, in the first's place")
    }

    @Test func headersFromADictionaryAreSortedByName() {
        let headers = HTTPHeaders(["b": "2", "a": "1", "C": "3"])
        #expect(headers.map(\.name) == ["C", "a", "b"])
        #expect(headers.dictionary == ["a": "1", "b": "2", "C": "3"])
    }

    @Test func dictionaryLiteralKeepsTheLastOfRepeatedNames() {
        let headers: HTTPHeaders = ["X-A": "1", "x-a": "2"]
        #expect(headers.map(\.description) == ["x-a: 2"])
    }

    @Test func equalityIgnoresNameCaseButNotOrderOrValues() {
        let one: HTTPHeaders = ["Accept": "a", "User-Agent": "u"]
        #expect(one == ["accept": "a", "user-agent": "u"])
        #expect(one != ["User-Agent": "u", "Accept": "a"])
        #expect(one != ["Accept": "A", "User-Agent": "u"])
        #expect(one != ["Accept": "a"])
    }

    @Test func mergingLetsTheOtherHeadersWin() {
        let base: HTTPHeaders = ["Accept": "a", "User-Agent": "base", "X-Keep": "k"]
        let merged = base.merging(["user-agent": "override", "X-New": "n"])
        #expect(merged.map(\.description) == ["Accept: a", "X-Keep: k", "user-agent: override", "X-New: n"])
    }

    @Test func headerHelpersBuildTheStandardFields() {
        #expect(HTTPHeaders.userAgent("Demo/1.0").map(\.description) == ["User-Agent: Demo/1.0"])
        #expect(HTTPHeaders.accept("application/json")["accept"] == "application/json")
        #expect(HTTPHeaders.contentType("text/plain")["Content-Type"] == "text/plain")
        #expect(HTTPHeaders.authorization(bearerToken: "t0k")["Authorization"] == "Bearer t0k")
        #expect(HTTPHeader.authorization(username: "Aladdin", password: "open sesame").value == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        let combined: HTTPHeaders = [.userAgent("u"), .accept("a")]
        #expect(combined.map(\.name) == ["User-Agent", "Accept"])
    }

    // MARK: URLConvertible

    @Test(
        "strings that are not http(s) URLs with a host are rejected",
        arguments: [
            "", "not a url", "http://", "https://", "ht tp://x", "http://[::1", "http://:80/", "http:///path",
            "ftp://example.com/", "file:///etc/passwd", "mailto:someone@example.com", "//example.com/path",
            "example.com", "http//example.com", "javascript:alert(1)",
        ]
    )
    func invalidURLStringsAreRejected(_ string: String) {
        do {
            let url = try string.asURL()
            Issue.record("accepted \(url)")
        } catch HTTPError.invalidURL(let rejected) {
            #expect(rejected == string)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(
        "http(s) URLs with a host are accepted",
        arguments: [
            "https://example.com", "http://example.com/a/b?c=d&e=f#frag", "HTTPS://EXAMPLE.COM/", "http://127.0.0.1:8080/x",
            "http://[::1]:8080/", "https://user:pass@example.com/", "https://bookmarks.example/entry/json/?url=https%3A%2F%2Fexample.com",
        ]
    )
    func validURLStringsAreAccepted(_ string: String) throws {
        let url = try string.asURL()
        #expect(url.host?.isEmpty == false)
        #expect(try URL(string: string)?.asURL() == url)
    }

    @Test func urlsAndComponentsAreCheckedToo() throws {
        let fileURL = URL(fileURLWithPath: "/tmp/x")
        #expect(throws: HTTPError.self) { try fileURL.asURL() }

        var components = URLComponents()
        components.scheme = "https"
        components.host = "example.com"
        components.path = "/search"
        components.queryItems = [URLQueryItem(name: "q", value: "a b&c")]
        #expect(try components.asURL().absoluteString == "https://example.com/search?q=a%20b%26c")

        var noHost = URLComponents()
        noHost.scheme = "https"
        noHost.path = "/only-a-path"
        #expect(throws: HTTPError.self) { try noHost.asURL() }

        let anyConvertible: [any URLConvertible] = ["https://a.example", URL(string: "http://b.example")!, components]
        #expect(try anyConvertible.map { try $0.asURL().host } == ["a.example", "b.example", "example.com"])
    }

    // MARK: HTTPError

    @Test func errorDescriptionsSayWhatHappened() {
        let notFound = HTTPError.responseValidationFailed(reason: .unacceptableStatusCode(code: 404))
        #expect(notFound.description.contains("HTTP 404 (Not Found)"))
        #expect(notFound.description.contains("200..<300"))
        #expect(notFound.localizedDescription == notFound.description)
        #expect(HTTPError.invalidURL("ht tp://x").description.contains("\"ht tp://x\" is not a valid URL"))
        let timeout = HTTPError.sessionTaskFailed(URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "http://x.test/")!]))
        #expect(timeout.description.contains("http://x.test/") && timeout.description.contains("timed out"))
        let contentType = HTTPError.responseValidationFailed(
            reason: .unacceptableContentType(acceptable: ["application/json"], responseContentType: "text/html"))
        #expect(contentType.description.contains("\"text/html\"") && contentType.description.contains("application/json"))
        let syntax = HTTPError.responseSerializationFailed(
            reason: .jsonSyntax(.init(message: "empty input", offset: 0, line: 1, column: 1)))
        #expect(syntax.description.contains("line 1, column 1 (byte 0): empty input"))
        struct Entry: Decodable { let count: Int }
        let decoding = Result { try JSONDecoder().decode([Entry].self, from: Data(#"[{"count": 1}, {}]"#.utf8)) }
        if case .failure(let error) = decoding {
            let described = HTTPError.responseSerializationFailed(reason: .decodingFailed(error: error)).description
            #expect(described.contains("missing key \"count\" at [1]"), "\(described)")
        } else {
            Issue.record("decoding should fail")
        }
        // An HTML page is no type to fix: the decoder could not read it at all.
        if case .failure(let error) = Result(catching: { try JSONDecoder().decode([Entry].self, from: Data("<html>502</html>".utf8)) }) {
            let described = HTTPError.responseSerializationFailed(reason: .decodingFailed(error: error)).description
            #expect(described.contains("could not be read by the decoder") && described.contains("validate(contentType:"), "\(described)")
            #expect(!described.contains("does not match the expected type") && !described.contains(".."), "\(described)")
        } else {
            Issue.record("decoding should fail")
        }
        #expect(HTTPError.responseSerializationFailed(reason: .stringEncodingFailed(encoding: .shiftJIS)).description.contains("encoding"))
        let tooLarge = HTTPError.responseTooLarge(limit: 1_000).description
        #expect(tooLarge.contains("Session(maximumResponseBodySize:) for a body held in memory"), "\(tooLarge)")
        #expect(tooLarge.contains("Session(maximumStreamedBodySize:) for a download or a stream"), "\(tooLarge)")
        for error in [HTTPError.cancelled, .abandoned, .responseSerializationFailed(reason: .inputDataNilOrZeroLength(serializer: "DataResponseSerializer")),
                      .responseValidationFailed(reason: .missingContentType(acceptable: ["text/plain"]))] {
            #expect(error.description.count > 40)
        }
    }

    @Test func errorAccessorsAnswerTheCommonQuestions() {
        struct Custom: Error {}
        let timeout = HTTPError.sessionTaskFailed(URLError(.timedOut))
        #expect(timeout.isTimeout && !timeout.isCancelled && timeout.urlError?.code == .timedOut)
        #expect((timeout.underlyingError as? URLError)?.code == .timedOut)
        #expect(HTTPError.cancelled.isCancelled && HTTPError.sessionTaskFailed(URLError(.cancelled)).isCancelled)
        #expect(HTTPError.cancelled.underlyingError == nil && HTTPError.cancelled.urlError == nil)
        #expect(HTTPError.responseValidationFailed(reason: .unacceptableStatusCode(code: 503)).responseCode == 503)
        #expect(HTTPError.abandoned.responseCode == nil && !HTTPError.abandoned.isTimeout)
        #expect(HTTPError.responseValidationFailed(reason: .customValidationFailed(error: Custom())).underlyingError is Custom)
        let parse = JSON.ParseError(message: "m", offset: 1, line: 1, column: 2)
        #expect(HTTPError.responseSerializationFailed(reason: .jsonSyntax(parse)).underlyingError as? JSON.ParseError == parse)
    }

    // MARK: DataResponse, timing, progress

    @Test func dataResponseExposesValueErrorAndMaps() throws {
        let timing = ResponseTiming(start: Date(timeIntervalSince1970: 10), end: Date(timeIntervalSince1970: 10.25))
        let url = try #require(URL(string: "http://127.0.0.1/x"))
        let http = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)
        let ok = AFDataResponse<String>(request: URLRequest(url: url), response: http, data: Data("12".utf8),
                                        result: .success("12"), timing: timing)
        #expect(ok.value == "12" && ok.error == nil)
        let mapped = ok.map { Int($0) ?? 0 }
        #expect(mapped.value == 12 && mapped.response?.statusCode == 200 && mapped.data == ok.data)
        let failed = ok.flatMap { _ -> Result<Int, HTTPError> in .failure(.cancelled) }
        #expect(failed.value == nil && failed.error?.isCancelled == true)
        let alamofireResult: AFResult<Int> = failed.result   // Alamofire's alias, the same type
        #expect(throws: HTTPError.self) { try alamofireResult.get() }
        #expect(failed.mapError { _ in HTTPError.abandoned }.error.map { "\($0)" } == "\(HTTPError.abandoned)")
        let retyped: DataResponse<Int, TestError> = failed.mapError { _ in TestError(8) }
        #expect(retyped.error == TestError(8), "mapError may change the failure's type, as Alamofire's")
        #expect(ok.timing.duration == 0.25 && DataResponse<String, HTTPError>.Timing.self == ResponseTiming.self)
        #expect(ok.description == "GET http://127.0.0.1/x -> 200, 2 bytes, 0.250s: success")
        #expect(ResponseTiming(start: Date(timeIntervalSince1970: 5), end: Date(timeIntervalSince1970: 4)).duration == 0)
        #expect(ResponseTiming(start: Date(timeIntervalSince1970: 1), end: Date(timeIntervalSince1970: 62.0625)).description == "61.063s")
        let endless = ResponseTiming(start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: .infinity))
        #expect(endless.description == "infs")
    }

    @Test func progressFractionIsNilWhenUnknownAndClamped() {
        #expect(TransferProgress(completed: 50, expected: 200).fraction == 0.25)
        #expect(TransferProgress(completed: 50, expected: nil).fraction == nil)
        #expect(TransferProgress(completed: 50, expected: -1).expected == nil)
        #expect(TransferProgress(completed: 0, expected: 0).fraction == nil)
        #expect(TransferProgress(completed: 300, expected: 200).fraction == 1)
        #expect(TransferProgress(completed: -5, expected: 200).fraction == 0)
        #expect(TransferProgress(completed: 512, expected: 1024).description == "512/1024 bytes (50%)")
        #expect(TransferProgress(completed: 512, expected: nil).description == "512 bytes")
    }
}
