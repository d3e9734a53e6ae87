import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

/// A head read off the wire answers the session's questions itself and
/// makes its `HTTPURLResponse` once, when asked.
@Suite("ResponseHead: the fields as received, the response made on first use")
struct ResponseHeadTests {
    let url = URL(string: "http://127.0.0.1/a")!

    private func head(_ fields: [(name: String, value: String)], status: Int = 200) -> ResponseHead {
        ResponseHead(url: url, statusCode: status, httpVersion: "HTTP/1.1", headers: HTTPHeaders(keepingDuplicates: fields.map { HTTPHeader(name: $0.name, value: $0.value) }))
    }

    @Test func namesMatchIgnoringTheCaseOfASCIILettersOnly() {
        let fields = [(name: "Content-Type", value: "text/plain"), (name: "a-b", value: "1"), (name: "[", value: "2"), (name: "é", value: "3")]
        let head = head(fields)
        #expect(head.value(forHTTPHeaderField: "cONTENT-tYPE") == "text/plain")
        #expect(head.value(forHTTPHeaderField: "Content-Typ") == nil)
        #expect(head.value(forHTTPHeaderField: "a\rb") == nil, "bytes that differ only in the 0x20 bit but are not letters")
        #expect(head.value(forHTTPHeaderField: "{") == nil)
        #expect(head.value(forHTTPHeaderField: "É") == nil, "only ASCII letters fold")
    }

    @Test func repeatsAreJoinedForOneValueAndKeptApartForCookies() {
        let head = head([(name: "Set-Cookie", value: "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT"), (name: "set-cookie", value: "b=2")])
        #expect(head.value(forHTTPHeaderField: "SET-COOKIE") == "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT, b=2")
        #expect(head.values(forHTTPHeaderField: "Set-Cookie") == ["a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "b=2"])
        #expect(head.allHeaderFields == ["Set-Cookie": "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT, b=2"])
        #expect(head.values(forHTTPHeaderField: "Date").isEmpty)
    }

    @Test(arguments: [("1234", Int64(1234)), (" 7 ", 7), ("", -1), ("12a", -1), ("-5", -1), ("99999999999999999999", -1)])
    func theAnnouncedLengthIsANumberOrMinusOne(value: String, expected: Int64) {
        #expect(head([(name: "Content-Length", value: value)]).expectedContentLength == expected)
        #expect(head([]).expectedContentLength == -1)
    }

    @Test func theResponseIsMadeOnceWithTheSameAnswers() {
        let head = head([(name: "Content-Type", value: "application/json; charset=utf-8"), (name: "Content-Length", value: "2")], status: 201)
        let response = head.response
        #expect(response === head.response)
        #expect(response.statusCode == 201)
        #expect(response.url == url)
        #expect(response.value(forHTTPHeaderField: "content-type") == head.value(forHTTPHeaderField: "content-type"))
        #expect(response.expectedContentLength == head.expectedContentLength)
        #expect(response.mimeType == "application/json")
        #expect(response.textEncodingName == "utf-8")
    }

    /// Each kind of head is one word holding its object's address as is: a
    /// value LeakSanitizer follows. (An enum of three classes tags two of
    /// them in the reference's spare bits, and LeakSanitizer then reported
    /// a head alive at exit as leaked.)
    @Test func everyKindOfHeadIsItsObjectsPlainAddress() throws {
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["X-Id": "7"]))
        let heads = [
            ResponseHead(response),
            ResponseHead(response, fields: HTTPHeaders(keepingDuplicates: [HTTPHeader(name: "X-Id", value: "7")])),
            head([(name: "X-Id", value: "7")]),
        ]
        #expect(MemoryLayout<ResponseHead>.size == MemoryLayout<UnsafeRawPointer>.size)
        for head in heads {
            #expect(unsafeBitCast(head, to: UnsafeRawPointer.self) == head.objectAddress)
            #expect(head.value(forHTTPHeaderField: "x-id") == "7")
        }
        #expect(heads[0].response === response && heads[1].response === response)
    }

    @Test func aHeadOfAResponseReadsIt() throws {
        let response = try #require(HTTPURLResponse(url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: ["Set-Cookie": "a=1", "X-Id": "7"]))
        let head = ResponseHead(response)
        #expect(head.response === response)
        #expect(head.statusCode == 404 && head.url == url)
        #expect(head.value(forHTTPHeaderField: "x-id") == "7")
        #expect(head.values(forHTTPHeaderField: "set-cookie") == ["a=1"])
    }

    /// URLSessionTransport hands on the fields it read to judge a head: the
    /// head answers from them exactly as corelibs' response would.
    @Test func aHeadURLSessionReadAnswersAsItsResponse() throws {
        // corelibs keeps `X-` names as spelled: two keys here.
        let fields = [
            "Content-Type": "application/json", "Content-Length": "2", "Set-Cookie": "a=1, b=2", "X-Id": "7", "ETag": "\"x\"",
            "X-Dup": "a", "x-dup": "b",
        ]
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields))
        guard case .accepted(let head) = ResponseHeadRules.read(response, answering: nil) else {
            Issue.record("a sound head was refused")
            return
        }
        #expect(head.response === response && head.statusCode == 200 && head.url == url)
        for name in ["content-type", "CONTENT-LENGTH", "set-cookie", "x-id", "Etag", "Date", "Transfer-Encoding"] {
            #expect(head.value(forHTTPHeaderField: name) == response.value(forHTTPHeaderField: name), "\(name)")
        }
        #expect(head.values(forHTTPHeaderField: "SET-COOKIE") == ["a=1, b=2"])
        #expect(head.values(forHTTPHeaderField: "Date").isEmpty)
        #expect(head.allHeaderFields == ResponseHead(response).allHeaderFields)
        #expect(head.expectedContentLength == 2)
    }

    @Test(arguments: [
        ["Content-Length": "2", "Transfer-Encoding": "chunked"], ["Content-Length": "2, 2"], ["X": "a\u{1}b"], ["Transfer-Encoding": "gzip"],
    ])
    func aHeadURLSessionRefusesIsNotHandedOn(fields: [String: String]) throws {
        let reason = try refusal(of: fields)
        #expect(reason?.isEmpty == false, "\(fields) was accepted")
    }

    /// A head that breaks several rules is refused for its framing first, as
    /// before the fields were read in one pass.
    @Test func ambiguousFramingIsNamedBeforeAControlCharacter() throws {
        let reason = try refusal(of: ["Content-Length": "2", "Transfer-Encoding": "chunked", "X": "a\u{1}b"])
        #expect(reason?.contains("ambiguous") == true, "\(String(describing: reason))")
    }

    /// Why URLSessionTransport refuses a `200` head with `fields`; `nil` when it accepts it.
    private func refusal(of fields: [String: String]) throws -> String? {
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields))
        guard case .refused(let reason) = ResponseHeadRules.read(response, answering: nil) else { return nil }
        return reason
    }

    /// The library's serializers judge an empty body by the head's status
    /// alone: no response is made for them.
    @Test func theLibrarysSerializersLeaveTheResponseUnmade() throws {
        let head = head([], status: 204)
        #expect(try DataResponseSerializer().serialize(request: nil, head: head, data: nil, error: nil) == Data())
        #expect(try StringResponseSerializer().serialize(request: nil, head: head, data: nil, error: nil) == "")
        #expect(head.isResponseMade == false)
        _ = head.response
        #expect(head.isResponseMade)
    }
}
