import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("DataRequest: failures get one clear outcome per handler")
struct FailureTests {
    /// A new session per test, on the transport under test (see TestTransport).
    let session = TestTransport.makeSession()

    @Test(arguments: ["", "not a url", "http://", "ht tp://x", "http://[::1", "ftp://example.com/file", "file:///etc/passwd"])
    func invalidURLsGiveEveryHandlerInvalidURL(_ url: String) async {
        let kinds = Recorder<String>()
        let done = Latch(count: 3)
        let req = session.request(url)
            .response(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
            .responseJSON(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
        let viaDeferred = req.serializingString()
        req.responseString(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await done.wait())
        #expect(kinds.events == ["invalidURL", "invalidURL", "invalidURL"])
        if case .failure(let error as HTTPError) = await viaDeferred.result {
            #expect(error.kind == "invalidURL")
        } else {
            Issue.record("the deferred bridge should fail with invalidURL")
        }
    }

    @Test func refusedConnectionIsATransportError() async throws {
        let port = try LoopbackServer.unusedPort()
        let result = await response { session.request("http://127.0.0.1:\(port)/").responseData(queue: handlerQueue, completionHandler: $0) }
        let error = try #require(result?.error)
        #expect(error.urlError?.code == .cannotConnectToHost)
        #expect(result?.response == nil)
    }

    @Test func aSilentServerHitsTheRequestTimeout() async throws {
        let fixture = try Fixture()
        let result = await response { session.request(fixture.url("/never"), timeout: 1).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.isTimeout == true)
        #expect(result?.error?.urlError?.failingURL?.path == "/never", "\(TestTransport.name): the error names the URL")
    }

    /// Interim heads are not the response: a server that sends only
    /// those, more often than the timeout, does not hold a request past it
    /// (libcurl restarted its idle timer on each one).
    @Test func interimHeadsWithoutAResponseHitTheRequestTimeout() async throws {
        let server = try LoopbackServer { _ in .interimHeads(status: 100, count: 1_000, interval: 0.3) }
        defer { server.shutdown() }
        let result = await response(within: 60) { session.request(server.url("/"), timeout: 1).responseData(queue: handlerQueue, completionHandler: $0) }
        let failed = try #require(result, "\(TestTransport.name): no outcome within 60 s")
        #expect(failed.error?.isTimeout == true, "\(TestTransport.name): \(String(describing: failed.error))")
        #expect(failed.response == nil)
    }

    /// An interim head, then the connection closes: no response came, and
    /// the connection was lost (retryable for an idempotent request).
    /// URLSession reported `badServerResponse` with the `100` as the
    /// response; AsyncHTTPClient `networkConnectionLost` without one.
    @Test(arguments: [100, 103])
    func anInterimHeadThenACloseIsALostConnectionWithoutAResponse(_ status: Int) async throws {
        let server = try LoopbackServer { _ in .raw(Data("HTTP/1.1 \(status) Interim\r\n\r\n".utf8)) }
        defer { server.shutdown() }
        let result = await response(within: 60) { session.request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        let failed = try #require(result, "\(TestTransport.name): no outcome within 60 s")
        #expect(failed.error?.urlError?.code == .networkConnectionLost, "\(TestTransport.name): \(String(describing: failed.error))")
        #expect(failed.response == nil, "\(TestTransport.name): \(String(describing: failed.response?.statusCode))")
    }

    @Test func aServerClosingMidBodyIsATransportError() async throws {
        let fixture = try Fixture()
        let result = await response { session.request(fixture.url("/close-mid-body")).responseData(queue: handlerQueue, completionHandler: $0) }
        let error = try #require(result?.error)
        #expect(error.urlError != nil, "a truncated body must not pass as a success: \(error)")
    }

    @Test func errorStatusesWithoutValidationAreResponses() async throws {
        let fixture = try Fixture()
        let result = await response { session.request(fixture.url("/status/500")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value == "status 500")
        #expect(result?.response?.statusCode == 500)
    }

    @Test func droppingRequestsWithoutHandlersIsSafe() async throws {
        let fixture = try Fixture()
        for index in 0..<200 {
            _ = session.request(fixture.url(index.isMultiple(of: 2) ? "/json" : "/never"), timeout: 30)
        }
        // Dropped requests finish (or stay in flight) without crashing; the
        // session still works afterwards. Asked of another server: the first
        // one is busy holding the hundred dropped `/never` connections, and
        // in a loaded run a request queued behind them timed out.
        let other = try Fixture()
        let after = await response { session.request(other.url("/json")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(after?.value?["count"].int == 3, "\(String(describing: after?.error))")
        fixture.server.shutdown()
    }
}
