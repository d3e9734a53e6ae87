#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import DeferredQueueTesting
import Glibc
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Synchronization
import Testing

/// The test fixture itself, exercised with `URLSession` (what the library uses)
/// and with raw sockets where a client library would hide the wire.
@Suite("LoopbackServer")
struct LoopbackServerTests {
    // MARK: - Answering requests

    @Test func echoReportsMethodTargetHeadersAndBody() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        var request = URLRequest(url: server.url("/echo/path?x=1&name=a%20b+c&flag"))
        request.httpMethod = "POST"
        request.setValue("yes", forHTTPHeaderField: "X-Test")
        request.httpBody = Data("hello body".utf8)
        let (data, response) = try await makeSession().data(for: request)
        #expect(status(response) == 200)
        #expect(header(response, "Content-Type") == "application/json")
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        #expect(echo.method == "POST")
        #expect(echo.target == "/echo/path?x=1&name=a%20b+c&flag")
        #expect(echo.path == "/echo/path")
        #expect(echo.query == ["x": "1", "name": "a b+c", "flag": ""])
        #expect(echo.headers.first { $0.key.lowercased() == "x-test" }?.value == "yes")
        #expect(echo.body == "hello body")
        #expect(echo.bodyEncoding == "utf8")
        #expect(echo.bodyLength == 10)
    }

    @Test func echoSendsBinaryBodiesAsBase64() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let body = Data([0xFF, 0xFE, 0x00, 0x01])
        var request = URLRequest(url: server.url("/bin"))
        request.httpMethod = "PUT"
        request.httpBody = body
        let (data, _) = try await makeSession().data(for: request)
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        #expect(echo.bodyEncoding == "base64")
        #expect(Data(base64Encoded: echo.body) == body)
    }

    @Test func aLargeUploadArrivesWhole() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let body = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        request.httpBody = body
        let (data, _) = try await makeSession().data(for: request)
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        #expect(echo.bodyLength == body.count)
        #expect(Data(base64Encoded: echo.body) == body)
    }

    @Test func routesAnswerUnknownPathsWith404() async throws {
        let server = try LoopbackServer(routes: ["/known": { _ in .text("yes") }])
        defer { server.shutdown() }
        let session = makeSession()
        let (known, knownResponse) = try await session.data(from: server.url("/known?q=1"))
        #expect(status(knownResponse) == 200)
        #expect(String(decoding: known, as: UTF8.self) == "yes")
        let (missing, missingResponse) = try await session.data(from: server.url("/missing"))
        #expect(status(missingResponse) == 404)
        #expect(String(decoding: missing, as: UTF8.self) == "no route for /missing")
    }

    @Test func handlersRunOffTheMainThread() async throws {
        let onMain = Mutex<Bool?>(nil)
        let server = try LoopbackServer { _ in
            onMain.withLock { $0 = Thread.isMainThread }
            return .text("ok")
        }
        defer { server.shutdown() }
        _ = try await makeSession().data(from: server.url("/"))
        #expect(onMain.withLock { $0 } == false)
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let server = try LoopbackServer { request in .text(request.path) }
        defer { server.shutdown() }
        let session = makeSession()
        for index in 0..<5 {
            let (data, _) = try await session.data(from: server.url("/\(index)"))
            #expect(String(decoding: data, as: UTF8.self) == "/\(index)")
        }
        #expect(server.requestCount == 5)
        #expect(server.connectionCount <= 2)
    }

    @Test func noContentRepliesKeepTheConnectionUsable() async throws {
        let server = try LoopbackServer(routes: [
            "/empty": { _ in .response(status: 204) },
            "/text": { _ in .text("after") },
        ])
        defer { server.shutdown() }
        let session = makeSession()
        let (empty, emptyResponse) = try await session.data(from: server.url("/empty"))
        #expect(status(emptyResponse) == 204)
        #expect(empty.isEmpty)
        let (text, _) = try await session.data(from: server.url("/text"))
        #expect(String(decoding: text, as: UTF8.self) == "after")
    }

    @Test func headRequestsGetHeadersOnly() async throws {
        let server = try LoopbackServer { _ in .text("twelve bytes") }
        defer { server.shutdown() }
        var request = URLRequest(url: server.url("/"))
        request.httpMethod = "HEAD"
        let session = makeSession()
        let (data, response) = try await session.data(for: request)
        #expect(status(response) == 200)
        #expect(data.isEmpty)
        #expect(header(response, "Content-Length") == "12")
        // The connection is still in sync afterwards.
        let (text, _) = try await session.data(from: server.url("/"))
        #expect(String(decoding: text, as: UTF8.self) == "twelve bytes")
    }

    @Test func chunkedRepliesAreReassembled() async throws {
        let chunks = ["first ", "", "second ", "third"].map { Data($0.utf8) }
        let server = try LoopbackServer { _ in .chunked(chunks: chunks, interval: 0.05) }
        defer { server.shutdown() }
        let (data, response) = try await makeSession().data(from: server.url("/"))
        #expect(status(response) == 200)
        #expect(header(response, "Transfer-Encoding")?.lowercased() == "chunked")
        #expect(String(decoding: data, as: UTF8.self) == "first second third")
    }

    @Test func trickledRepliesArriveWhole() async throws {
        let body = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) })
        let server = try LoopbackServer { _ in .trickle(body: body, chunkSize: 300, interval: 0.05) }
        defer { server.shutdown() }
        let (data, _) = try await makeSession().data(from: server.url("/"))
        #expect(data == body)
    }

    @Test func delayedRepliesArrive() async throws {
        let server = try LoopbackServer { _ in .delayed(0.2, .json(#"{"late":true}"#, status: 201)) }
        defer { server.shutdown() }
        let (data, response) = try await makeSession().data(from: server.url("/"))
        #expect(status(response) == 201)
        #expect(String(decoding: data, as: UTF8.self) == #"{"late":true}"#)
    }

    @Test func redirectsAreFollowedByURLSession() async throws {
        let server = try LoopbackServer(routes: [
            "/from": { _ in .redirect(to: "/to") },
            "/to": { _ in .text("arrived") },
        ])
        defer { server.shutdown() }
        let (data, response) = try await makeSession().data(from: server.url("/from"))
        #expect(status(response) == 200)
        #expect(response.url?.path == "/to")
        #expect(String(decoding: data, as: UTF8.self) == "arrived")
    }

    @Test func aThirtyTwoMebibyteReplyArrivesIntact() async throws {
        try await MemoryHeavy.exclusively { try await thirtyTwoMebibyteReply() }
    }

    private func thirtyTwoMebibyteReply() async throws {
        let body = Data((0..<(32 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) })
        let server = try LoopbackServer { _ in .response(status: 200, body: body) }
        defer { server.shutdown() }
        let (data, _) = try await makeSession(timeout: 60).data(from: server.url("/big"))
        #expect(data.count == body.count)
        #expect(data == body)
    }

    @Test func invalidStatusesBecome500() async throws {
        let server = try LoopbackServer { _ in .response(status: 42) }
        defer { server.shutdown() }
        let (data, response) = try await makeSession().data(from: server.url("/"))
        #expect(status(response) == 500)
        #expect(String(decoding: data, as: UTF8.self).contains("42"))
    }

    // MARK: - Misbehaving replies fail the client, never hang it

    @Test(arguments: [
        Misbehaviour.wrongContentLength, .closeMidBody, .closeAfterHeaders, .close, .garbage,
    ])
    func misbehavingRepliesFailTheRequest(_ misbehaviour: Misbehaviour) async throws {
        let server = try LoopbackServer { _ in misbehaviour.reply }
        defer { server.shutdown() }
        await #expect(throws: (any Error).self) {
            _ = try await makeSession(timeout: 20).data(from: server.url("/"))
        }
    }

    @Test func silentRepliesTimeOut() async throws {
        let server = try LoopbackServer { _ in .neverRespond }
        defer { server.shutdown() }
        // On Linux (swift-corelibs-foundation) the session's timeoutIntervalForRequest wins over a
        // shorter URLRequest.timeoutInterval, so both are set.
        let request = URLRequest(url: server.url("/"), timeoutInterval: 1)
        let error = await #expect(throws: URLError.self) {
            _ = try await makeSession(timeout: 1).data(for: request)
        }
        #expect(error?.code == .timedOut)
    }

    @Test func aSilentConnectionDoesNotHoldUpOthers() async throws {
        let server = try LoopbackServer(routes: [
            "/hang": { _ in .neverRespond },
            "/slow": { _ in .delayed(3600, .text("never")) },
            "/fast": { _ in .text("fast") },
        ])
        defer { server.shutdown() }
        let session = makeSession(timeout: 60)
        let hanging = Task { try await session.data(from: server.url("/hang")) }
        let slow = Task { try await session.data(from: server.url("/slow")) }
        #expect(await eventually { server.requestCount == 2 })
        let (data, _) = try await session.data(from: server.url("/fast"))
        #expect(String(decoding: data, as: UTF8.self) == "fast")
        server.shutdown()
        await #expect(throws: (any Error).self) { _ = try await hanging.value }
        await #expect(throws: (any Error).self) { _ = try await slow.value }
    }

    // MARK: - Load

    @Test func twoHundredConcurrentRequestsAreAllAnswered() async throws {
        let server = try LoopbackServer { request in .text(request.query["n"] ?? "?") }
        defer { server.shutdown() }
        let session = makeSession(timeout: 60)
        let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let (data, _) = try await session.data(from: server.url("/?n=\(index)"))
                    return String(decoding: data, as: UTF8.self) == "\(index)"
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0 })
        #expect(server.requestCount == 200)
    }

    @Test func fiveHundredURLSessionConnectionsAtOnceAreAllAnswered() async throws {
        let server = try LoopbackServer { request in .delayed(0.2, .text(request.query["n"] ?? "?")) }
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        configuration.httpMaximumConnectionsPerHost = 600
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<500 {
                group.addTask {
                    let (data, _) = try await session.data(from: server.url("/?n=\(index)"))
                    return String(decoding: data, as: UTF8.self) == "\(index)"
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered == 500)
    }

    @Test func fiveHundredOpenRawConnectionsAreAllServed() async throws {
        let server = try LoopbackServer { request in .text(request.path) }
        defer { server.shutdown() }
        let clients = try (0..<500).map { _ in try RawClient(port: server.port) }
        #expect(await eventually { server.openConnectionCount == 500 })
        for (index, client) in clients.enumerated() {
            try client.send("GET /\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        for (index, client) in clients.enumerated() {
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == Data("/\(index)".utf8))
        }
        clients.forEach { $0.close() }
        #expect(await eventually { server.openConnectionCount == 0 })
        #expect(server.connectionCount == 500)
    }

    // MARK: - The wire, seen through raw sockets

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let server = try LoopbackServer { request in
            request.path == "/slow" ? .delayed(0.2, .text("slow")) : .echo(request)
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send(
            "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /second HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                + "POST /third HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4\r\nchun\r\n3;ext=1\r\nked\r\n0\r\nTrailer: t\r\n\r\n"
        )
        let first = try client.readResponse()
        #expect(first.body == Data("slow".utf8))
        let second = try JSONDecoder().decode(Echo.self, from: client.readResponse().body)
        #expect(second.path == "/second")
        #expect(second.body == "abc")
        let third = try JSONDecoder().decode(Echo.self, from: client.readResponse().body)
        #expect(third.path == "/third")
        #expect(third.body == "chunked")
        #expect(server.connectionCount == 1)
    }

    @Test func connectionCloseRequestsCloseAfterTheReply() async throws {
        let server = try LoopbackServer { _ in .text("bye") }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.headers["connection"] == "close")
        #expect(try client.readToEnd().isEmpty)
    }

    @Test func http10RequestsCloseByDefault() async throws {
        let server = try LoopbackServer { _ in .text("old") }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("GET / HTTP/1.0\r\n\r\n")
        #expect(try client.readResponse().body == Data("old".utf8))
        #expect(try client.readToEnd().isEmpty)
    }

    @Test(arguments: [
        ("NOT A REQUEST\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\nno colon here\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: banana\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n", 413),
        ("GET / HTTP/1.1\r\nX-Big: <70 000 bytes>\r\n\r\n", 431),
    ])
    func badRequestsAreRefusedAndClosed(request: String, expectedStatus: Int) async throws {
        let server = try LoopbackServer { _ in .text("should not run") }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send(request.replacingOccurrences(of: "<70 000 bytes>", with: String(repeating: "a", count: 70_000)))
        let response = try client.readResponse()
        #expect(response.status == expectedStatus)
        #expect(response.headers["connection"] == "close")
        #expect(try client.readToEnd().isEmpty)
        #expect(server.requestCount == 0)
    }

    @Test func rawRepliesAreSentVerbatim() async throws {
        let bytes = Data("HTTP/1.1 299 Odd\r\nX-Raw: 1\r\n\r\nanything".utf8)
        let server = try LoopbackServer { _ in .raw(bytes) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readToEnd() == bytes)
    }

    @Test func expectContinueIsHonoured() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readResponse()
        #expect(interim.status == 100)
        try client.send("hello")
        let echo = try JSONDecoder().decode(Echo.self, from: client.readResponse().body)
        #expect(echo.body == "hello")
    }

    /// Replies that must make a client fail rather than wait forever.
    enum Misbehaviour: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case wrongContentLength, closeMidBody, closeAfterHeaders, close, garbage

        var testDescription: String { rawValue }

        var reply: Reply {
            let body = Data(repeating: 0x61, count: 100)
            switch self {
            case .wrongContentLength:
                return .response(status: 200, headers: [("Content-Length", "100")], body: body.prefix(10))
            case .closeMidBody:
                return .closeMidBody(body: body, sentBytes: 40)
            case .closeAfterHeaders:
                return .closeAfterHeaders(declaredLength: 100)
            case .close:
                return .close
            case .garbage:
                return .raw(Data("this is not HTTP\r\n\r\n".utf8))
            }
        }
    }

    // MARK: - Lifetime

    @Test func shutdownIsIdempotentAndClosesOpenConnections() async throws {
        let server = try LoopbackServer { _ in .neverRespond }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        let idle = try RawClient(port: server.port)
        defer { idle.close() }
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await eventually { server.requestCount == 1 && server.openConnectionCount == 2 })
        server.shutdown()
        server.shutdown()
        #expect(try client.readToEnd().isEmpty)
        #expect(try idle.readToEnd().isEmpty)
        #expect(await eventually { server.openConnectionCount == 0 })
        #expect(throws: RawClient.ConnectError.refused) { try RawClient(port: server.port) }
        server.shutdown()
    }

    @Test func releasingTheServerShutsItDown() async throws {
        var server: LoopbackServer? = try LoopbackServer { _ in .neverRespond }
        let port = try #require(server?.port)
        let client = try RawClient(port: port)
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let counted = server
        #expect(await eventually { counted?.requestCount == 1 })
        _ = consume counted
        server = nil
        #expect(try client.readToEnd().isEmpty)
        #expect(throws: RawClient.ConnectError.refused) { try RawClient(port: port) }
    }

    @Test func unusedPortsRefuseConnections() async throws {
        let port = try LoopbackServer.unusedPort()
        #expect(port > 0)
        #expect(throws: RawClient.ConnectError.refused) { try RawClient(port: port) }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        let error = await #expect(throws: URLError.self) { _ = try await makeSession().data(from: url) }
        #expect(error?.code == .cannotConnectToHost)
    }

    // MARK: - URLs and requests

    @Test func urlsAreBuiltFromPathsAndSurviveOddInput() throws {
        let server = try LoopbackServer { _ in .close }
        defer { server.shutdown() }
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.url("/a/b?c=d").absoluteString == "http://127.0.0.1:\(server.port)/a/b?c=d")
        #expect(server.url("a").absoluteString == "http://127.0.0.1:\(server.port)/a")
        #expect(server.url("").absoluteString == "http://127.0.0.1:\(server.port)/")
        for odd in ["a b", "/%zz", "/ü?q=ä ö", "/\u{0}", "/[x]", "/a#b"] {
            let url = server.url(odd)
            #expect(url.host == "127.0.0.1")
            #expect(url.port == server.port)
        }
    }

    @Test func requestsSplitTargetsIntoPathAndQuery() {
        let request = ServerRequest(
            method: "GET", target: "http://h:1/p/q?a=%41&b&a=2#frag",
            headers: [(name: "Content-Type", value: "text/plain")]
        )
        #expect(request.path == "/p/q")
        #expect(request.query == ["a": "2", "b": ""])
        #expect(request.header("content-type") == "text/plain")
        #expect(request.header("missing") == nil)
        #expect(ServerRequest(method: "GET", target: "/x?%=1").query == ["%": "1"])
        #expect(ServerRequest(method: "OPTIONS", target: "*").path == "*")
    }
}

// MARK: - Helpers

/// Helpers are members, so they never clash with helpers elsewhere in the test target.
extension LoopbackServerTests {
    /// The JSON that ``Reply/echo(_:)`` sends.
    private struct Echo: Decodable {
        var method: String
        var target: String
        var path: String
        var query: [String: String]
        var headers: [String: String]
        var body: String
        var bodyEncoding: String
        var bodyLength: Int
    }

    private func makeSession(timeout: TimeInterval = 20) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        return URLSession(configuration: configuration)
    }

    private func status(_ response: URLResponse) -> Int? {
        (response as? HTTPURLResponse)?.statusCode
    }

    private func header(_ response: URLResponse, _ name: String) -> String? {
        (response as? HTTPURLResponse)?.value(forHTTPHeaderField: name)
    }
}
