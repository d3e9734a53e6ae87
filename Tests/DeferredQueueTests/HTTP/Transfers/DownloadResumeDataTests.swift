import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import DeferredQueueTesting
import Testing
@testable import DeferredQueue

/// The resume data format and the rules for when a download can resume.
@Suite("Download resume data: format, validators, Content-Range")
struct DownloadResumeDataTests {
    static let url = URL(string: "https://downloads.invalid/big.iso")!

    func response(_ status: Int, _ headers: [String: String]) -> ResponseHead {
        ResponseHead(HTTPURLResponse(url: Self.url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!)
    }

    var get: URLRequest { URLRequest(url: Self.url) }

    @Test func theFormatRoundTripsAndIsVersioned() throws {
        let data = DownloadResumeData(
            url: Self.url, headers: ["Authorization": "Bearer t"], partialFileName: DownloadResumeData.partialFilePrefix + "x",
            bytes: 10, validator: "\"v1\"", totalBytes: 100
        )
        let encoded = data.encoded()
        #expect(try DownloadResumeData(decoding: encoded) == data)
        let json = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(json["format"] as? String == "DeferredQueue.DownloadResumeData")
        #expect(json["version"] as? Int == 1)

        var future = data
        future.version = 2
        #expect(throws: ResumeDataError.self) { try DownloadResumeData(decoding: future.encoded()) }
        var foreign = data
        foreign.format = "NSURLSessionResumeInfo"
        #expect(throws: ResumeDataError.self) { try DownloadResumeData(decoding: foreign.encoded()) }
    }

    /// The resumed request keeps the original's timeout (it waited the
    /// default 60 s); data without one, from before, still reads.
    @Test func theTimeoutIsKeptForTheResumedRequest() throws {
        let data = DownloadResumeData(
            url: Self.url, headers: [:], partialFileName: DownloadResumeData.partialFilePrefix + "x",
            bytes: 10, validator: "\"v1\"", totalBytes: nil, timeout: 2.5
        )
        #expect(try DownloadResumeData(decoding: data.encoded()).timeout == 2.5)
        let session = Session(transport: MockTransport { _ in .status(200) })
        #expect(session.download(resumingWith: data.encoded()).urlRequest?.timeoutInterval == 2.5)

        var older = try #require(try JSONSerialization.jsonObject(with: data.encoded()) as? [String: Any])
        older["timeout"] = nil
        let olderData = try JSONSerialization.data(withJSONObject: older)
        #expect(try DownloadResumeData(decoding: olderData).timeout == nil)
        for absurd in [0, -1, -0.5] {
            var hostile = data
            hostile.timeout = absurd
            #expect(throws: ResumeDataError.self, "\(absurd)") { try DownloadResumeData(decoding: hostile.encoded()) }
        }
    }

    /// JSON has no infinity and decoding refuses zero or less: a request
    /// with such a timeout still ends with resume data that reads back,
    /// carrying the timeout its attempts applied.
    @Test(arguments: [
        (Double.infinity, HTTPTransportAttempt.maximumIdleTimeout), (0, Session.defaultTimeout),
        (-3, Session.defaultTimeout), (.nan, Session.defaultTimeout), (1e300, HTTPTransportAttempt.maximumIdleTimeout),
    ])
    func anyRequestTimeoutIsRecordedAsOneThatReadsBack(requested: Double, applied: Double) throws {
        var file = try DownloadFile()
        defer { file.discard() }
        try file.write(Data("partial".utf8))
        var request = URLRequest(url: Self.url)
        request.timeoutInterval = requested
        let response = ResponseHead(url: Self.url, statusCode: 200, httpVersion: "HTTP/1.1", headers: ["ETag": "\"v1\""])
        var machine = RequestStateMachine.make()
        machine.recordResumeData(file: file, keptName: DownloadResumeData.partialFilePrefix + "x", validator: "\"v1\"",
                                 request: request, response: response)
        let data = try #require(machine.resumeData)
        #expect(try DownloadResumeData(decoding: data).timeout == applied, "requested \(requested)")
    }

    @Test func aPartialFileNameNeverLeavesTheTemporaryDirectory() {
        for name in ["../../etc/passwd", "/etc/passwd", "DeferredQueue-resume-../x", "other-file", "DeferredQueue-resume-a\\b", ""] {
            let data = DownloadResumeData(url: Self.url, headers: [:], partialFileName: name, bytes: 1, validator: "\"v\"", totalBytes: nil)
            #expect(throws: ResumeDataError.self, "\(name)") { try DownloadResumeData(decoding: data.encoded()) }
        }
        let file = DownloadResumeData(url: URL(string: "file:///etc/passwd")!, headers: [:],
                                      partialFileName: DownloadResumeData.partialFilePrefix + "x", bytes: 1, validator: "\"v\"", totalBytes: nil)
        #expect(throws: ResumeDataError.self) { try DownloadResumeData(decoding: file.encoded()) }
        #expect(throws: ResumeDataError.self) { try DownloadResumeData(decoding: Data("{}".utf8)) }
    }

    /// The validator goes out as `If-Range`, after the session checked the
    /// request's own fields: resume data read back from disk must not smuggle a line in.
    @Test func aValidatorThatIsNoHeaderValueIsRefused() {
        for validator in ["\"a\"\r\nX-Injected: 1", "\"a\"\n", "\u{0}", " \"padded\" "] {
            let data = DownloadResumeData(
                url: Self.url, headers: [:], partialFileName: DownloadResumeData.partialFilePrefix + "x",
                bytes: 1, validator: validator, totalBytes: nil
            )
            #expect(throws: ResumeDataError.self, "\(validator.debugDescription)") { try DownloadResumeData(decoding: data.encoded()) }
        }
    }

    /// A total below the bytes kept trapped (`complete - 1` of `Int64.min`)
    /// when a `206` was checked against it.
    @Test(arguments: [Int64.min, -1, 0, 9])
    func aTotalBelowTheBytesKeptIsRefused(_ total: Int64) {
        let data = DownloadResumeData(
            url: Self.url, headers: [:], partialFileName: DownloadResumeData.partialFilePrefix + "x", bytes: 10,
            validator: "\"v\"", totalBytes: total
        )
        #expect(throws: ResumeDataError.self, "\(total)") { try DownloadResumeData(decoding: data.encoded()) }
    }

    /// `setValue` drops a value with a line break, and a bad name would
    /// reach the transport: resume data read back must hold fields that may be sent.
    @Test(arguments: [["X-A": "a\r\nInjected: 1"], ["X-N": "a\u{0}b"], ["Bad Name": "v"]])
    func aHeaderFieldThatMayNotBeSentIsRefused(_ headers: [String: String]) {
        let data = DownloadResumeData(
            url: Self.url, headers: headers, partialFileName: DownloadResumeData.partialFilePrefix + "x", bytes: 10,
            validator: "\"v\"", totalBytes: nil
        )
        #expect(throws: ResumeDataError.self, "\(headers)") { try DownloadResumeData(decoding: data.encoded()) }
    }

    @Test func onlyAGetWithAStrongValidatorAndNoContentCodingCanResume() {
        #expect(DownloadResumeData.validator(request: get, response: response(200, ["ETag": "\"a\""])) == "\"a\"")
        #expect(DownloadResumeData.validator(request: get, response: response(206, ["ETag": "\"a\""])) == "\"a\"")
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        #expect(DownloadResumeData.validator(request: get, response: response(200, ["ETag": "W/\"a\"", "Last-Modified": date])) == date)
        #expect(DownloadResumeData.validator(request: get, response: response(200, [:])) == nil)
        #expect(DownloadResumeData.validator(request: get, response: response(200, ["ETag": "\"a\"", "Content-Encoding": "gzip"])) == nil)
        #expect(DownloadResumeData.validator(request: get, response: response(200, ["ETag": "\"a\"", "Accept-Ranges": "none"])) == nil)
        #expect(DownloadResumeData.validator(request: get, response: response(404, ["ETag": "\"a\""])) == nil)
        var post = get
        post.httpMethod = "POST"
        #expect(DownloadResumeData.validator(request: post, response: response(200, ["ETag": "\"a\""])) == nil)
    }

    @Test func contentRangeIsParsedStrictly() {
        #expect(ContentRange("bytes 10-99/100") == ContentRange("bytes 10-99/100"))
        #expect(ContentRange("bytes 10-99/100")?.first == 10)
        #expect(ContentRange("bytes 10-99/100")?.complete == 100)
        #expect(ContentRange("bytes 10-99/*")?.complete == nil)
        #expect(ContentRange("bytes 10-99/*") != nil)
        // The last: a length of `last + 1` would overflow (a trap when a resumed download's file began).
        for bad in ["bytes */100", "bytes 99-10/100", "bytes 10-99/50", "items 1-2/3", "bytes -1-5/9", "bytes 1-2", "",
                    "bytes 10-9223372036854775807/*"] {
            #expect(ContentRange(bad) == nil, "\(bad)")
        }
        let point = ResumePoint(data: DownloadResumeData(
            url: Self.url, headers: [:], partialFileName: DownloadResumeData.partialFilePrefix + "x", bytes: 10, validator: "\"v\"", totalBytes: nil
        ))
        #expect(point.continuation(in: response(206, ["Content-Range": "bytes 10-99/100"])) == ContentRange("bytes 10-99/100"))
        #expect(point.continuation(in: response(206, ["Content-Range": "bytes 10-99/*"])) != nil, "an unknown length")
        #expect(point.continuation(in: response(206, ["Content-Range": "bytes 10-99/100", "Content-Length": "90", "ETag": "\"v\""])) != nil)
        #expect(point.continuation(in: response(206, ["Content-Range": "bytes 0-99/100"])) == nil, "another start")
        #expect(point.continuation(in: response(200, ["Content-Range": "bytes 10-99/100"])) == nil, "not a 206")
        #expect(point.continuation(in: response(206, ["Content-Range": "bytes 10-49/100"])) == nil, "not to the end")
        #expect(point.continuation(in: response(206, ["Content-Range": "bytes 10-99/100", "Content-Length": "10"])) == nil, "another length")
        #expect(point.continuation(in: response(206, ["Content-Range": "bytes 10-99/100", "ETag": "\"w\""])) == nil, "another version")
        let known = ResumePoint(data: DownloadResumeData(
            url: Self.url, headers: [:], partialFileName: DownloadResumeData.partialFilePrefix + "x", bytes: 10,
            validator: "Tue, 01 Dec 2026 00:00:00 GMT", totalBytes: 100
        ))
        #expect(known.continuation(in: response(206, ["Content-Range": "bytes 10-99/*", "Last-Modified": "Tue, 01 Dec 2026 00:00:00 GMT"])) != nil)
        #expect(known.continuation(in: response(206, ["Content-Range": "bytes 10-199/200"])) == nil, "another entity's length")
        #expect(known.continuation(in: response(206, ["Content-Range": "bytes 10-49/*"])) == nil, "not to the known end")
        #expect(known.continuation(in: response(206, ["Content-Range": "bytes 10-99/100", "Last-Modified": "Wed, 02 Dec 2026 00:00:00 GMT"])) == nil)
        #expect(point.headers.map(\.name) == ["Range", "If-Range", "Accept-Encoding"])
        #expect(point.headers.first?.value == "bytes=10-")
    }
}
