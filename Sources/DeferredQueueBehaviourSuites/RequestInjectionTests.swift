import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// The control characters: U+0000–U+001F and DEL.
private let controlCharacters: [UInt8] = Array(0x00...0x1F) + [0x7F]

/// A one-character string of `byte` (an ASCII control character).
private func character(_ byte: UInt8) -> String {
    String(UnicodeScalar(byte))
}

/// A loopback server that echoes every request, for counting what reached it.
private func echoServer() throws -> LoopbackServer {
    try LoopbackServer { .echo($0) }
}

/// The request's refusal, waited for through one handler; `nil` if it succeeded or did not settle.
private func refusal(_ request: DataRequest) async -> HTTPError.URLRequestValidationFailureReason? {
    let result = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
    guard case .urlRequestValidationFailed(let reason)? = result?.error else { return nil }
    return reason
}

/// An adapter that sets a header field through `URLRequest.headers`.
private struct HeaderAdapter: RequestAdapter {
    let name: String
    let value: String

    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        var urlRequest = urlRequest
        urlRequest.headers.update(name: name, value: value)
        return urlRequest
    }
}

@Suite("Requests: a method or header field that could smuggle bytes is refused before sending")
struct RequestInjectionTests {
    @Test(arguments: controlCharacters)
    func aMethodHoldingAControlCharacterIsRefusedUnsent(_ byte: UInt8) async throws {
        let server = try echoServer()
        defer { server.shutdown() }
        let method = "GE" + character(byte) + "T"
        let reason = await refusal(TestTransport.makeSession().request(server.url("/"), method: HTTPMethod(rawValue: method)))
        guard case .invalidMethod(let refused)? = reason else {
            Issue.record("\(TestTransport.name): byte \(byte) in a method was not refused: \(String(describing: reason))")
            return
        }
        #expect(refused == method)
        #expect(server.connectionCount == 0)
    }

    @Test(arguments: controlCharacters)
    func aHeaderNameHoldingAControlCharacterIsRefusedUnsent(_ byte: UInt8) async throws {
        let server = try echoServer()
        defer { server.shutdown() }
        let name = "X-" + character(byte) + "Name"
        let reason = await refusal(TestTransport.makeSession().request(server.url("/"), headers: [name: "1"]))
        guard case .invalidHeaderName(let refused)? = reason else {
            Issue.record("\(TestTransport.name): byte \(byte) in a header name was not refused: \(String(describing: reason))")
            return
        }
        #expect(refused == name)
        #expect(server.connectionCount == 0)
    }

    /// Every control character but the horizontal tab is refused in a value; a tab is
    /// allowed inside one (RFC 9110 field-content) and arrives.
    @Test(arguments: controlCharacters)
    func aHeaderValueHoldingAControlCharacterOtherThanTabIsRefusedUnsent(_ byte: UInt8) async throws {
        let server = try echoServer()
        defer { server.shutdown() }
        let value = "a" + character(byte) + "b"
        let result = await response {
            TestTransport.makeSession().request(server.url("/"), headers: ["X-Value": value])
                .responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        if byte == 0x09 {
            #expect(result?.value?["headers"]["X-Value"].string == value)
            return
        }
        guard case .urlRequestValidationFailed(.invalidHeaderValue(let name))? = result?.error else {
            Issue.record("\(TestTransport.name): byte \(byte) in a header value was not refused: \(String(describing: result?.result))")
            return
        }
        #expect(name == "X-Value")
        #expect(server.connectionCount == 0)
    }

    @Test(arguments: [
        "GET /x HTTP/1.1\r\nHost: internal\r\n\r\nGET", "POST\r\nX-Injected: 1", "GET /admin", "GET ", "", "GÉT", "GET:", "(GET)",
    ])
    func smugglingAndNonTokenMethodsAreRefusedUnsent(_ method: String) async throws {
        let server = try echoServer()
        defer { server.shutdown() }
        let reason = await refusal(TestTransport.makeSession().request(server.url("/"), method: HTTPMethod(rawValue: method)))
        #expect(reason.map { "\($0)" }?.hasPrefix("The HTTP method") == true, "\(TestTransport.name): \(method.debugDescription)")
        #expect(server.connectionCount == 0)
    }

    @Test(arguments: ["X Name", "X-Name:", ":authority", "Ünïcode", "X-Name\u{2028}", "", "X(1)", "X/Name"])
    func nonTokenHeaderNamesAreRefusedUnsent(_ name: String) async throws {
        let server = try echoServer()
        defer { server.shutdown() }
        let reason = await refusal(TestTransport.makeSession().request(server.url("/"), headers: [name: "1"]))
        guard case .invalidHeaderName(let refused)? = reason else {
            Issue.record("\(TestTransport.name): \(name.debugDescription) was not refused: \(String(describing: reason))")
            return
        }
        #expect(refused == name)
        #expect(server.connectionCount == 0)
    }

    @Test func customTokenMethodsAreSentAsGiven() async throws {
        let server = try echoServer()
        defer { server.shutdown() }
        let result = await response {
            TestTransport.makeSession().request(server.url("/"), method: HTTPMethod(rawValue: "PURGE"))
                .responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value?["method"].string == "PURGE")
    }

    @Test func anAuthorizationWithALineBreakFailsInsteadOfVanishing() async throws {
        let server = try echoServer()
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let secret = "Bearer s3cret\r\nX-Injected: 1"
        let kinds = Recorder<String>()
        let descriptions = Recorder<String>()
        let done = Latch(count: 3)
        let request = session.request(server.url("/"), headers: ["Authorization": secret])
            .response(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
            .responseString(queue: handlerQueue) {
                kinds.append($0.error?.kind ?? "ok")
                descriptions.append($0.error.map { "\($0)" } ?? "")
                done.arrive()
            }
        let viaDeferred = request.serializingData()
        request.responseJSON(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await done.wait())
        #expect(kinds.events == Array(repeating: "urlRequestValidation", count: 3))
        if case .failure(HTTPError.urlRequestValidationFailed(.invalidHeaderValue(let name))) = await viaDeferred.result {
            #expect(name == "Authorization")
        } else {
            Issue.record("the deferred bridge should fail with invalidHeaderValue")
        }
        let description = try #require(descriptions.events.first)
        #expect(description.contains("Authorization"))
        #expect(!description.contains("s3cret") && !description.contains("Injected"), "the value must not be printed")
        // The server counts: a valid request on the same session reaches it, alone.
        _ = await response { session.request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(server.requestCount == 1)
    }

    @Test func leadingAndTrailingWhitespaceIsTrimmedFromValues() async throws {
        let server = try echoServer()
        defer { server.shutdown() }
        let result = await response {
            TestTransport.makeSession().request(server.url("/"), headers: ["X-Padded": " \tvalue with inner space\t ", "X-Blank": "  "])
                .responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.request?.value(forHTTPHeaderField: "X-Padded") == "value with inner space")
        #expect(result?.request?.value(forHTTPHeaderField: "X-Blank") == "")
        #expect(result?.value?["headers"]["X-Padded"].string == "value with inner space")
    }

    @Test func nonASCIIValuesAreSentAsUTF8() async throws {
        let server = try echoServer()
        defer { server.shutdown() }
        let result = await response {
            TestTransport.makeSession().request(server.url("/"), headers: ["X-Name": "Zoë"])
                .responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value?["headers"]["X-Name"].string == "Zoë")
    }

    @Test func descriptionsEscapeWhatTheyQuoteSoLogsCannotBeInjected() {
        let method = HTTPError.urlRequestValidationFailed(reason: .invalidMethod("GET\r\nX-Injected: 1\u{0}")).description
        #expect(!method.contains("\r") && !method.contains("\n") && !method.contains("\u{0}"))
        #expect(method.contains(#"GET\r\nX-Injected: 1\0"#))
        let name = HTTPError.urlRequestValidationFailed(reason: .invalidHeaderName("X\nY")).description
        #expect(!name.contains("\n") && name.contains(#"X\nY"#))
    }
}
