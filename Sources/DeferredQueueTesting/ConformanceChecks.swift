import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

/// The checks of ``HTTPTransportConformance``, one per promise of the
/// ``HTTPTransport`` contract.
enum ConformanceChecks {
    typealias Check = HTTPTransportConformance.Check

    static let all: [Check] = [
        Check(name: "a collected body arrives whole in the completion, after its head", body: collectedBody),
        Check(name: "a collected body offered off the callback queue arrives whole, once, last", body: collectedBodyTakenDirectly),
        Check(name: "a streamed body arrives in order between its head and its completion", body: streamedBody),
        Check(name: "a compressed body arrives decoded", body: compressedBody),
        Check(name: "a collected body past its limit stops with responseTooLarge", body: bodyPastTheLimit),
        Check(name: "a redirect is reported, not followed", body: redirectReported),
        Check(name: "an authentication challenge is reported, not answered", body: challengeReported),
        Check(name: "an interim 1xx head is not reported as the response", body: interimHeadSkipped),
        Check(name: "the request goes out as prepared: method, target, headers, body", body: requestAsPrepared),
        Check(name: "a body file is streamed as the request body", body: bodyFileStreamed),
        Check(name: "cancel from many threads completes the attempt once, with URLError.cancelled", body: cancelFromManyThreads),
        Check(name: "an attempt that receives nothing fails at its idle timeout with URLError.timedOut", body: idleTimeout),
        Check(name: "a refused connection is URLError.cannotConnectToHost", body: refusedConnection),
        Check(name: "a body cut short after its head is URLError.networkConnectionLost", body: bodyCutShort),
        Check(name: "ambiguous framing (Content-Length with chunked) is URLError.badServerResponse", body: ambiguousFraming),
        Check(name: "a request that breaks RFC 9110's syntax fails with its requestSyntaxViolation, unsent", body: invalidSyntaxRefused),
    ]

    // MARK: - Bodies

    static func collectedBody(_ conformance: HTTPTransportConformance) async throws {
        let json = #"{"title":"hello","count":3,"tags":["a","b"]}"#
        let log = try await run(conformance, reply: { _ in .json(json) }, collects: true)
        try expect(log.heads.map(\.statusCode) == [200], "expected one head with 200, got \(log.heads.map(\.statusCode))")
        try expect(log.chunks.isEmpty, "a collecting attempt reported \(log.chunks.count) data events")
        try expectSuccess(log)
        try expect(log.completion?.body == Data(json.utf8), "the completion's body is \(describe(log.completion?.body))")
    }

    /// The same with a receiver that takes a completion offered off the
    /// queue (`didCompleteDirectly`): taken or not, one head and one whole body.
    static func collectedBodyTakenDirectly(_ conformance: HTTPTransportConformance) async throws {
        let json = #"{"title":"hello","count":3,"tags":["a","b"]}"#
        let log = try await run(conformance, reply: { _ in .json(json) }, collects: true, takesDirectCompletions: true)
        try expect(log.heads.map(\.statusCode) == [200], "expected one head with 200, got \(log.heads.map(\.statusCode))")
        try expect(log.chunks.isEmpty, "a collecting attempt reported \(log.chunks.count) data events")
        try expectSuccess(log)
        try expect(log.completion?.body == Data(json.utf8), "the completion's body is \(describe(log.completion?.body))")
    }

    static func streamedBody(_ conformance: HTTPTransportConformance) async throws {
        let parts = ["first ", "second ", "third"].map { Data($0.utf8) }
        let log = try await run(conformance, reply: { _ in .chunked(chunks: parts, interval: 0.05) }, collects: false)
        try expect(log.heads.map(\.statusCode) == [200], "expected one head with 200, got \(log.heads.map(\.statusCode))")
        try expect(log.chunks.reduce(Data(), +) == parts.reduce(Data(), +), "the chunks joined are \(describe(log.chunks.reduce(Data(), +)))")
        try expectSuccess(log)
        try expect(log.completion?.body == nil, "a streamed attempt's completion carries a body")
    }

    static func compressedBody(_ conformance: HTTPTransportConformance) async throws {
        let length: Int64 = 100_000
        let log = try await run(conformance, reply: { _ in .gzip(decodedLength: length) }, collects: true)
        try expectSuccess(log)
        try expect(
            log.completion?.body == GeneratedContent.pattern.bytes(in: 0..<length),
            "the body is \(describe(log.completion?.body)), not the \(length) decoded bytes"
        )
    }

    static func bodyPastTheLimit(_ conformance: HTTPTransportConformance) async throws {
        let limit = 1 << 20
        let log = try await run(conformance, reply: { _ in .generated(length: 64 << 20) }, collects: true, limit: limit)
        guard case .responseTooLarge(let reported)? = log.completion?.error as? HTTPError else {
            throw ConformanceFailure(message: "expected HTTPError.responseTooLarge, got \(describe(log.completion?.error))")
        }
        try expect(reported == limit, "responseTooLarge names \(reported), not the attempt's limit \(limit)")
        try expect(log.completion?.body == nil, "a body past its limit was handed over")
    }

    // MARK: - What the session decides

    static func redirectReported(_ conformance: HTTPTransportConformance) async throws {
        let server = try LoopbackServer { request in
            request.path == "/" ? .redirect(to: "/elsewhere") : .text("followed")
        }
        defer { server.shutdown() }
        let log = try await run(conformance, server: server, collects: true)
        try expect(log.heads.map(\.statusCode) == [302], "expected the 302 head, got \(log.heads.map(\.statusCode))")
        try expectSuccess(log)
        try expect(server.requestCount == 1, "the server received \(server.requestCount) requests: the redirect was followed")
    }

    static func challengeReported(_ conformance: HTTPTransportConformance) async throws {
        let server = try LoopbackServer { _ in
            .response(status: 401, headers: [("WWW-Authenticate", #"Basic realm="conformance""#)], body: Data("no".utf8))
        }
        defer { server.shutdown() }
        let log = try await run(conformance, server: server, collects: true)
        try expect(log.heads.map(\.statusCode) == [401], "expected the 401 head, got \(log.heads.map(\.statusCode))")
        try expect(log.completion?.error == nil, "a 401 is a response, not a failure: \(describe(log.completion?.error))")
        try expect(server.requestCount == 1, "the server received \(server.requestCount) requests: the challenge was answered")
    }

    static func interimHeadSkipped(_ conformance: HTTPTransportConformance) async throws {
        let raw = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
        let log = try await run(conformance, reply: { _ in .raw(Data(raw.utf8)) }, collects: true)
        try expect(log.heads.map(\.statusCode) == [200], "expected only the final 200 head, got \(log.heads.map(\.statusCode))")
        try expectSuccess(log)
        try expect(log.completion?.body == Data("ok".utf8), "the body is \(describe(log.completion?.body))")
    }

    // MARK: - The request

    static func requestAsPrepared(_ conformance: HTTPTransportConformance) async throws {
        let received = Received()
        let server = try LoopbackServer { request in
            received.store(request)
            return .text("ok")
        }
        defer { server.shutdown() }
        let body = GeneratedContent.pattern.bytes(in: 0..<300_000)
        var request = URLRequest(url: server.url("/echo?q=1&r=two"))
        request.httpMethod = "PATCH"
        request.setValue("yes", forHTTPHeaderField: "X-Conformance")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let log = try await run(conformance, request: request, collects: false)
        try expectSuccess(log)
        let seen = try unwrap(received.request, "the server received no request")
        try expect(seen.method == "PATCH", "the method went out as \(seen.method)")
        try expect(seen.target == "/echo?q=1&r=two", "the target went out as \(seen.target)")
        try expect(seen.header("X-Conformance") == "yes", "the header went out as \(seen.header("X-Conformance") ?? "nothing")")
        try expect(seen.body == body, "the body went out as \(describe(seen.body))")
        let sent = log.sent
        try expect(sent == sent.sorted(), "didSend totals went backwards: \(sent)")
        try expect(sent.last.map { $0 == Int64(body.count) } ?? true, "the last didSend total is \(sent.last ?? 0), not \(body.count)")
    }

    static func bodyFileStreamed(_ conformance: HTTPTransportConformance) async throws {
        let received = Received()
        let server = try LoopbackServer { request in
            received.store(request)
            return .text("ok")
        }
        defer { server.shutdown() }
        let body = GeneratedContent.pattern.bytes(in: 0..<(1 << 20) + 3)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "PUT"
        let log = try await run(conformance, request: request, collects: true, bodyFile: file)
        try expectSuccess(log)
        let seen = try unwrap(received.request, "the server received no request")
        try expect(seen.bodyLength == Int64(body.count), "the server received \(seen.bodyLength) bytes, not \(body.count)")
        try expect(seen.body == body, "the file went out as different bytes")
    }

    // MARK: - Endings

    static func cancelFromManyThreads(_ conformance: HTTPTransportConformance) async throws {
        let server = try LoopbackServer { _ in .neverRespond }
        defer { server.shutdown() }
        var request = URLRequest(url: server.url("/"))
        request.timeoutInterval = 600
        let log = try await run(conformance, request: request, collects: false) { task in
            // Cancelled once the request reached the server, from 16 threads at once.
            guard await eventually({ server.requestCount > 0 }) else {
                throw ConformanceFailure(message: "the request never reached the server")
            }
            DispatchQueue.concurrentPerform(iterations: 16) { _ in task.cancel() }
        } after: { task in
            task.cancel()
        }
        try expectFailure(log, .cancelled)
    }

    static func idleTimeout(_ conformance: HTTPTransportConformance) async throws {
        let server = try LoopbackServer { _ in .neverRespond }
        defer { server.shutdown() }
        var request = URLRequest(url: server.url("/"))
        request.timeoutInterval = 1
        let log = try await run(conformance, request: request, collects: true)
        try expectFailure(log, .timedOut)
    }

    static func refusedConnection(_ conformance: HTTPTransportConformance) async throws {
        let port = try LoopbackServer.unusedPort()
        let url = try unwrap(URL(string: "http://127.0.0.1:\(port)/"), "no URL for port \(port)")
        let log = try await run(conformance, request: URLRequest(url: url), collects: true)
        try expect(log.heads.isEmpty, "a head was reported for a refused connection")
        try expectFailure(log, .cannotConnectToHost)
    }

    static func bodyCutShort(_ conformance: HTTPTransportConformance) async throws {
        let reply = Reply.closeMidBody(body: Data(repeating: 0x61, count: 100_000), sentBytes: 50_000)
        let log = try await run(conformance, reply: { _ in reply }, collects: true)
        try expect(log.heads.map(\.statusCode) == [200], "the head had arrived: expected it reported, got \(log.heads.map(\.statusCode))")
        try expectFailure(log, .networkConnectionLost)
    }

    static func ambiguousFraming(_ conformance: HTTPTransportConformance) async throws {
        let raw = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        let log = try await run(conformance, reply: { _ in .raw(Data(raw.utf8)) }, collects: true)
        try expectFailure(log, .badServerResponse)
    }

    // MARK: - Refusals

    /// Requests a session would refuse, handed to the transport directly.
    static let syntaxViolations: [(what: String, spoil: @Sendable (inout URLRequest) -> Void)] = [
        ("a field name that is not ASCII", { $0.setValue("1", forHTTPHeaderField: "Na\u{EF}ve") }),
        ("a field name with a space", { $0.setValue("1", forHTTPHeaderField: "X Injected") }),
        ("a method with a line break", { $0.httpMethod = "GET / HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET" }),
        ("a field value with a line break", { $0.allHTTPHeaderFields = ["X-Token": "1\r\nX-Injected: 1"] }),
        // AsyncHTTPClient trapped on the first and sent the second to port 18901.
        ("a port beyond 65535", { $0.url = $0.url.flatMap { URL(string: "http://127.0.0.1:65536\($0.path)") } }),
        ("a host name's port beyond 65535", { $0.url = URL(string: "http://localhost:84437/") }),
    ]

    static func invalidSyntaxRefused(_ conformance: HTTPTransportConformance) async throws {
        let server = try LoopbackServer { _ in .text("sent") }
        defer { server.shutdown() }
        for (what, spoil) in syntaxViolations {
            var request = URLRequest(url: server.url("/"))
            request.timeoutInterval = deadline
            spoil(&request)
            let attempt = HTTPTransportAttempt(request: request, collectsBody: true)
            let expected = try unwrap(attempt.requestSyntaxViolation, "\(what): requestSyntaxViolation found nothing wrong")
            let log = try await run(conformance, request: request, collects: true)
            try expect(log.heads.isEmpty, "\(what): a response head was reported")
            let error = log.completion?.error
            try expect(
                (error as? HTTPError).map { "\($0)" } == "\(expected)",
                "\(what): expected \(expected), got \(describe(error))"
            )
        }
        try expect(server.connectionCount == 0, "\(server.connectionCount) connection(s) reached the server")
    }
}
