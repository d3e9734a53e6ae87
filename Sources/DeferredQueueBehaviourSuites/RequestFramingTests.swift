import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// How a request body is handed to the session.
enum BodyRoute: String, Sendable, CaseIterable, CustomStringConvertible {
    case request, uploadData, uploadFile

    var description: String { rawValue }

    /// A request of `body` to `url` this way, with `headers`.
    func request(_ body: Data, to url: URL, headers: HTTPHeaders, on session: Session, in directory: TemporaryDirectory) throws -> DataRequest {
        switch self {
        case .request:
            return session.request(url, method: .post, headers: headers, body: body)
        case .uploadData:
            return session.upload(body, to: url, headers: headers)
        case .uploadFile:
            let file = directory.url.appendingPathComponent("body")
            try body.write(to: file)
            return session.upload(file, to: url, headers: headers)
        }
    }
}

/// The echo of `request`, or the failure: the body the server read and the header field names.
private func echo(_ request: DataRequest) async -> (body: String?, fieldNames: [String], error: HTTPError?) {
    let result = await response { request.responseJSON(queue: handlerQueue, completionHandler: $0) }
    let names = result?.value?["headers"].object.map { Array($0.keys) } ?? []
    return (result?.value?["body"].string, names, result?.error)
}

@Suite("Requests: the fields that frame a body must describe the body sent")
struct RequestFramingTests {
    /// A body that, cut at a short `Content-Length`, holds a second request.
    /// Computed: LeakSanitizer cannot see a `Data` held by a static constant
    /// and reports its storage as leaked.
    private static var smuggling: Data { Data("helloGET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8) }

    /// A body given as `httpBodyStream` has no length until it was read, so
    /// no `Content-Length` of the caller's can be checked against it:
    /// refused unsent (URLSession sent the caller's length and, from libcurl,
    /// `Transfer-Encoding: chunked` beside it — a body framed two ways).
    @Test func aContentLengthBesideABodyStreamIsRefusedUnsent() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        var urlRequest = URLRequest(url: server.url("/first"))
        urlRequest.httpMethod = "POST"
        urlRequest.httpBodyStream = InputStream(data: Self.smuggling)
        urlRequest.setValue("0", forHTTPHeaderField: "Content-Length")
        let result = await echo(TestTransport.makeSession().request(urlRequest))
        guard case .urlRequestValidationFailed(.invalidContentLength(let declared, let bodyLength))? = result.error else {
            Issue.record("\(TestTransport.name): sent: \(result)")
            return
        }
        #expect(declared == "0")
        #expect(bodyLength == -1)
        #expect(server.connectionCount == 0)
    }

    @Test(arguments: BodyRoute.allCases)
    func aContentLengthShorterThanTheBodyIsRefusedUnsent(_ route: BodyRoute) async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        let request = try route.request(
            Self.smuggling, to: server.url("/first"), headers: ["Content-Length": "5"], on: TestTransport.makeSession(), in: directory
        )
        let result = await echo(request)
        guard case .urlRequestValidationFailed(.invalidContentLength(let declared, let bodyLength))? = result.error else {
            Issue.record("\(TestTransport.name), \(route): sent: \(result)")
            return
        }
        #expect(declared == "5")
        #expect(bodyLength == Int64(Self.smuggling.count))
        #expect(server.connectionCount == 0)
    }

    @Test(arguments: ["5", "0", "+12", "0x0c", "12, 12", "-1", "", "99999999999999999999"])
    func aContentLengthThatIsNotTheBodysLengthInDigitsIsRefused(_ declared: String) async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let body = Data("hello world!".utf8)
        let request = TestTransport.makeSession().request(server.url("/"), method: .put, headers: ["content-length": declared], body: body)
        let result = await echo(request)
        guard case .urlRequestValidationFailed(.invalidContentLength)? = result.error else {
            Issue.record("\(TestTransport.name), \(declared.debugDescription): sent: \(result)")
            return
        }
        #expect(server.connectionCount == 0)
    }

    /// Without a body the server would wait for bytes the next request on the connection sends.
    @Test func aContentLengthOnARequestWithoutABodyIsRefused() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let result = await echo(TestTransport.makeSession().request(server.url("/"), method: .delete, headers: ["Content-Length": "5"]))
        guard case .urlRequestValidationFailed(.invalidContentLength("5", 0))? = result.error else {
            Issue.record("\(TestTransport.name): sent: \(result)")
            return
        }
        #expect(server.connectionCount == 0)
    }

    @Test(arguments: BodyRoute.allCases)
    func aContentLengthThatIsTheBodysLengthIsSentWithTheBody(_ route: BodyRoute) async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        let body = Data("hello world!".utf8)
        let request = try route.request(body, to: server.url("/"), headers: ["Content-Length": "12"], on: TestTransport.makeSession(), in: directory)
        let result = await echo(request)
        #expect(result.error == nil, "\(TestTransport.name), \(route): \(String(describing: result.error))")
        #expect(result.body == "hello world!")
    }

    @Test(arguments: [
        (["Transfer-Encoding": "gzip"], "gzip"), (["Transfer-Encoding": "gzip, chunked"], "gzip, chunked"),
        (["Transfer-Encoding": "chunked", "Content-Length": "12"], "chunked"),
    ])
    func aTransferEncodingOtherThanChunkedAloneIsRefusedUnsent(_ fields: [String: String], _ coding: String) async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let request = TestTransport.makeSession().request(server.url("/"), method: .post, headers: HTTPHeaders(fields), body: Data("hello world!".utf8))
        let result = await echo(request)
        guard case .urlRequestValidationFailed(.invalidTransferEncoding(let refused))? = result.error else {
            Issue.record("\(TestTransport.name), \(fields): sent: \(result)")
            return
        }
        #expect(refused == coding)
        #expect(server.connectionCount == 0)
    }

    /// libcurl sent the field and no chunk, and the server waited for one
    /// until the request timed out.
    @Test func aChunkedTransferEncodingWithoutABodyIsRefusedUnsent() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let request = TestTransport.makeSession().request(server.url("/"), headers: ["Transfer-Encoding": "chunked"], timeout: 30)
        let result = await echo(request)
        guard case .urlRequestValidationFailed(.invalidTransferEncoding("chunked"))? = result.error else {
            Issue.record("\(TestTransport.name): sent: \(result)")
            return
        }
        #expect(server.connectionCount == 0)
    }

    /// URLSession on Linux would add `application/x-www-form-urlencoded` to bytes sent from memory.
    @Test(arguments: [BodyRoute.request, .uploadData])
    func aBodyWithoutAContentTypeIsSentWithoutOne(_ route: BodyRoute) async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        let request = try route.request(Data("\u{89}PNG".utf8), to: server.url("/"), headers: [:], on: TestTransport.makeSession(), in: directory)
        let result = await echo(request)
        #expect(result.error == nil, "\(TestTransport.name), \(route): \(String(describing: result.error))")
        #expect(!result.fieldNames.isEmpty)
        #expect(!result.fieldNames.contains { $0.lowercased() == "content-type" }, "\(TestTransport.name), \(route): \(result.fieldNames)")
    }

    /// Refused first where the transport cannot send it (URLSession everywhere), sent where it can.
    @Test func aGETWithABodyIsRefusedWhereTheTransportCannotSendOne() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await echo(session.request(server.url("/"), parameters: ["q": "1"], encoding: URLEncoding.httpBody))
        if session.transport.supportsBodyInGETRequests {
            #expect(result.error == nil, "\(TestTransport.name): \(String(describing: result.error))")
            #expect(result.body == "q=1")
        } else {
            guard case .urlRequestValidationFailed(.bodyDataInGETRequest(let body))? = result.error else {
                Issue.record("\(TestTransport.name): \(result)")
                return
            }
            #expect(body == Data("q=1".utf8))
            #expect(server.connectionCount == 0)
        }
    }

    /// libcurl sends a `HEAD` without its body, unsaid: refused as a GET's
    /// is where the transport cannot send one; AsyncHTTPClient sends it.
    @Test func aHEADWithABodyIsRefusedWhereTheTransportWouldDropIt() async throws {
        let received = Recorder<Int>()
        let server = try LoopbackServer { request in
            received.append(request.body.count)
            return .text("head")
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await response {
            session.request(server.url("/"), method: .head, parameters: ["q": "1"], encoding: URLEncoding.httpBody)
                .response(queue: handlerQueue, completionHandler: $0)
        }
        if session.transport.supportsBodyInGETRequests {
            #expect(result?.error == nil, "\(TestTransport.name): \(String(describing: result?.error))")
            #expect(received.events == [3], "the body went out")
        } else {
            guard case .urlRequestValidationFailed(.bodyDataInGETRequest(let body))? = result?.error else {
                Issue.record("\(TestTransport.name): \(String(describing: result?.result))")
                return
            }
            #expect(body == Data("q=1".utf8))
            #expect(server.connectionCount == 0)
        }
    }

    /// Alamofire's `testThatAdaptedGETRequestsWithBodyDataAreConsideredInvalid`:
    /// a body an adapter gave a GET is the adaptation's failure.
    @Test func aGETBodyAnAdapterAddedIsAnAdaptationFailure() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let adapter = Adapter { request, _, completion in
            var request = request
            request.httpBody = Data("q=1".utf8)
            completion(.success(request))
        }
        let result = await echo(session.request(server.url("/"), interceptor: adapter))
        if session.transport.supportsBodyInGETRequests {
            #expect(result.body == "q=1", "\(TestTransport.name): \(String(describing: result.error))")
        } else {
            guard case .requestAdaptationFailed(let underlying as HTTPError)? = result.error,
                  case .urlRequestValidationFailed(.bodyDataInGETRequest) = underlying else {
                Issue.record("\(TestTransport.name): \(result)")
                return
            }
            #expect(server.connectionCount == 0)
        }
    }

    @Test func aModifierThatClearsTheURLFailsWithInvalidURL() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let result = await echo(TestTransport.makeSession().request(server.url("/"), requestModifier: { $0.url = nil }))
        guard case .invalidURL? = result.error else {
            Issue.record("\(TestTransport.name): \(result)")
            return
        }
        #expect(server.connectionCount == 0)
    }

    /// A device or a FIFO reports a size of 0: sent, it would be an empty body and a success.
    @Test(arguments: ["/dev/null", "/dev/zero", "fifo"])
    func aFileThatIsNotARegularFileIsNotUploaded(_ path: String) async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        var file = URL(fileURLWithPath: path)
        if path == "fifo" {
            file = directory.url.appendingPathComponent("fifo")
            try #require(mkfifo(file.path, 0o600) == 0)
        }
        let result = await echo(TestTransport.makeSession().upload(file, to: server.url("/")))
        guard case .uploadFileUnavailable(file)? = result.error else {
            Issue.record("\(TestTransport.name), \(path): \(result)")
            return
        }
        #expect(server.connectionCount == 0)
    }
}
