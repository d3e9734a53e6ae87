import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import DeferredQueueTesting
import Testing
@testable import DeferredQueue

/// A server may close a kept-alive connection at any time, and a client learns
/// of it only when it reads: a request sent there in the meantime is lost
/// before any byte of a response. One that changes nothing on the server
/// when sent twice is sent again on another connection (libcurl does it
/// under URLSession, for any request without a body; the AsyncHTTPClient
/// transport does it itself, once); one with a body never is.
@Suite("Transports: a request lost with a kept-alive connection is sent again, when that is safe")
struct StaleConnectionTests {
    let session = TestTransport.makeSession()

    /// Answers requests in turn with `replies`, then with the last one; records them.
    private final class Script: Sendable {
        let received: Recorder<String>
        let server: LoopbackServer

        init(_ replies: [Reply]) throws {
            let received = Recorder<String>()
            self.received = received
            server = try LoopbackServer { request in
                received.append("\(request.method) \(request.path)")
                return replies[min(received.count, replies.count) - 1]
            }
        }

        deinit { server.shutdown() }
    }

    @Test func aGETWhoseConnectionTheServerClosedUnansweredIsSentAgain() async throws {
        let script = try Script([.text("first"), .close, .text("again")])
        let first = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(first?.value == "first")
        let second = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(second?.value == "again", "\(String(describing: second?.error))")
        #expect(script.received.events == ["GET /a", "GET /a", "GET /a"])
    }

    /// Not a POST (it may not be idempotent), nor a body: libcurl would send
    /// the head again without the body, and wait for the timeout.
    @Test(arguments: [HTTPMethod.post, .put, .patch])
    func aRequestWithABodyWhoseConnectionTheServerClosedUnansweredIsNotSentAgain(_ method: HTTPMethod) async throws {
        let script = try Script([.text("first"), .close, .text("again")])
        let first = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(first?.value == "first")
        let sent = await response {
            session.request(script.server.url("/a"), method: method, parameters: ["n": "1"]).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(sent?.error?.urlError?.code == .networkConnectionLost, "\(String(describing: sent?.error))")
        #expect(script.received.events == ["GET /a", "\(method.rawValue) /a"])
    }

    /// A streamed body, sent chunked: libcurl went on with the spent stream
    /// and ended the chunks, so the server received the request a second
    /// time, complete, with an empty body.
    @Test func aStreamedBodyWhoseConnectionTheServerClosedUnansweredIsNotSentAgain() async throws {
        let script = try Script([.text("first"), .close, .text("again")])
        let first = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(first?.value == "first")
        var post = URLRequest(url: script.server.url("/a"))
        post.httpMethod = "POST"
        post.httpBodyStream = InputStream(data: Data("hello world".utf8))
        let sent = await response { session.request(post).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(sent?.error?.urlError?.code == .networkConnectionLost, "\(String(describing: sent?.result))")
        // A second request that reached the server would be recorded by now.
        let check = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(check?.value == "again")
        #expect(script.received.events == ["GET /a", "POST /a", "GET /a"])
    }

    /// A request without a body: libcurl sends it again whatever its method
    /// (nothing in URLSession's API can stop it); the AsyncHTTPClient
    /// transport only when the method is idempotent.
    @Test func aBodilessPOSTIsSentAgainOnlyByLibcurl() async throws {
        let script = try Script([.text("first"), .close, .text("again")])
        _ = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        let sent = await response { session.request(script.server.url("/a"), method: .post).responseString(queue: handlerQueue, completionHandler: $0) }
        if TestTransport.name == "URLSession" {
            #expect(sent?.value == "again", "\(String(describing: sent?.result))")
            #expect(script.received.events == ["GET /a", "POST /a", "POST /a"])
        } else {
            #expect(sent?.error?.urlError?.code == .networkConnectionLost, "\(String(describing: sent?.result))")
            #expect(script.received.events == ["GET /a", "POST /a"])
        }
    }

    @Test func aFileUploadWhoseConnectionTheServerClosedUnansweredIsNotSentAgain() async throws {
        let script = try Script([.text("first"), .close, .text("again")])
        let file = try patternFile(length: 10_000)
        defer { try? FileManager.default.removeItem(at: file) }
        let first = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(first?.value == "first")
        let sent = await response {
            session.upload(file, to: script.server.url("/a"), method: .put).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(sent?.error?.urlError?.code == .networkConnectionLost, "\(String(describing: sent?.error))")
        #expect(script.received.events == ["GET /a", "PUT /a"])
    }

    @Test func aRequestWhoseConnectionAlwaysClosesIsSentAgainAtMostOnce() async throws {
        let script = try Script([.close])
        let result = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        let error = try #require(result?.error)
        #expect(error.urlError?.code == .networkConnectionLost || error.urlError?.code == .badServerResponse, "\(error)")
        #expect((1...2).contains(script.received.count), "\(script.received.events)")
    }

    @Test func cancellingARequestWhileItIsSentAgainStopsIt() async throws {
        let script = try Script([.text("first"), .close, .neverRespond])
        let first = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(first?.value == "first")
        let done = Latch()
        let outcome = Recorder<DataResponse<String, HTTPError>>()
        let request = session.request(script.server.url("/a"), timeout: .infinity).responseString(queue: handlerQueue) {
            outcome.append($0)
            done.arrive()
        }
        #expect(await eventually { script.received.count == 3 })
        request.cancel()
        #expect(await done.wait())
        #expect(outcome.events.first?.error?.isExplicitlyCancelledError == true, "\(String(describing: outcome.events.first?.error))")
        // The transport stopped the request sent again: its connection closes.
        #expect(await eventually { script.server.openConnectionCount == 0 }, "\(script.server.openConnectionCount) open")
    }

    @Test func aResponseCutShortIsNotSentAgain() async throws {
        let script = try Script([.closeAfterHeaders(declaredLength: 100), .text("again")])
        let result = await response { session.request(script.server.url("/a")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.urlError != nil, "\(String(describing: result))")
        #expect(script.received.events == ["GET /a"])
    }
}
