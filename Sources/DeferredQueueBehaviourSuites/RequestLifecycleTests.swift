import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Request: state, properties, and the session's registry")
struct RequestLifecycleTests {
    @Test func stateGoesInitializedResumedFinished() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let req = session.request(fixture.url("/json"))
        #expect(req.state == .initialized)
        #expect(req.request == nil && req.response == nil)
        let result = await response(within: 120) { req.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value != nil)
        #expect(req.state == .finished)
        #expect(req.request?.url?.path == "/json")
        #expect(req.response?.statusCode == 200)
        #expect(await eventually { session.runningRequestCount == 0 }, "the session lets it go once its handlers are on their way")
    }

    @Test func cancelledIsFinalAndResumeDoesNothing() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let req = session.request(fixture.url("/json"))
        req.cancel()
        #expect(req.state == .cancelled)
        req.resume()
        #expect(req.state == .cancelled)
        let result = await response(within: 120) { req.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.kind == "cancelled")
        #expect(fixture.server.requestCount == 0, "a request cancelled before it started is never sent")
    }

    @Test func retryCountCountsRetriesOnly() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession(retryPolicy: RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.01))
        let req = session.request(fixture.url("/flaky"))
        let result = await response(within: 120) { req.responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value?["ok"].bool == true)
        #expect(req.retryCount == 2)
    }

    @Test func cancelAllRequestsCancelsEveryRunningRequest() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let kinds = Recorder<String>()
        let done = Latch(count: 5)
        for _ in 0..<5 {
            session.request(fixture.url("/never"), timeout: .infinity).response(queue: handlerQueue) { kinds.append($0.error?.kind ?? "ok"); done.arrive() }
        }
        #expect(await eventually { session.runningRequestCount == 5 })
        session.cancelAllRequests()
        #expect(await done.wait(seconds: 120))
        #expect(kinds.events == Array(repeating: "cancelled", count: 5))
        #expect(await eventually { session.runningRequestCount == 0 }, "the session lets it go once its handlers are on their way")
    }

    /// The session lets a request go before its handlers run, finished or
    /// cancelled: a handler no longer finds it among the running requests
    /// (and one that retries it joins them again after that, never before).
    @Test func aHandlerFindsItsRequestGoneFromTheSession() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let running = Recorder<Int>()
        let finished = await response(within: 120) { done in
            session.request(fixture.url("/json")).responseData(queue: handlerQueue) {
                running.append(session.runningRequestCount)
                done($0)
            }
        }
        #expect(finished?.value != nil)
        let cancelled = session.request(fixture.url("/never"))
        let done = Latch()
        cancelled.response(queue: handlerQueue) { _ in
            running.append(session.runningRequestCount)
            done.arrive()
        }
        #expect(await eventually { fixture.server.requestCount == 2 }, "the second request reached the server")
        cancelled.cancel()
        #expect(await done.wait(seconds: 120))
        #expect(running.events == [0, 0])
    }

    /// A request joins the session's running requests in the same step that
    /// starts it: a cancel() as soon as it reads as resumed still finds it
    /// there to remove (joining after would leave it there for good).
    @Test func aRequestCancelledAsItStartsLeavesTheSession() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let request = session.request(fixture.url("/never"))
        let started = Latch()
        DispatchQueue.global().async {
            request.resume()
            started.arrive()
        }
        #expect(await eventually { request.isResumed })
        request.cancel()
        #expect(await started.wait())
        #expect(session.runningRequestCount == 0)
    }

    @Test func defaultHeadersNameTheLibraryAndCallerHeadersWin() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let echo = await response(within: 120) { session.request(fixture.url("/echo")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        let agent = try #require(echo?.value?["headers"]["User-Agent"].string)
        #expect(agent.contains("DeferredQueue/\(DeferredQueueInfo.version)"))
        #expect(echo?.value?["headers"]["Accept-Language"].string?.isEmpty == false)
        let custom = await response(within: 120) {
            session.request(fixture.url("/echo"), headers: [.userAgent("Mine/1")]).responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(custom?.value?["headers"]["User-Agent"].string == "Mine/1")
    }

    // On Linux a body cut short is `URLError.unknown`, which RetryPolicy did
    // not treat as transient; the URLSession transport reports it as
    // `networkConnectionLost`, as Apple platforms do.
    @Test func aBodyCutShortIsTransientForIdempotentMethodsOnly() async throws {
        let attempts = Counter()
        let server = try LoopbackServer { _ in
            attempts.increment()
            return .closeMidBody(body: Data(repeating: 66, count: 10_000), sentBytes: 100)
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession(retryPolicy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        let get = await response(within: 120) { session.request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(get?.error?.urlError?.code == .networkConnectionLost)
        #expect(attempts.count == 3, "the GET was retried twice")
        let post = await response(within: 120) {
            session.request(server.url("/"), method: .post, body: Data("x".utf8)).responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(post?.error?.urlError?.code == .networkConnectionLost)
        #expect(attempts.count == 4, "the POST was not")
    }

    @Test func aBodyOverTheSessionLimitFailsWithResponseTooLarge() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession(maximumResponseBodySize: 1_000)
        let collected = await response(within: 120) { session.request(fixture.url("/big")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(collected?.error?.kind == "tooLarge")
        let streamed = await response(within: 120) {
            session.request(fixture.url("/big")).downloadProgress(queue: handlerQueue) { _ in }
                .responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(streamed?.error?.kind == "tooLarge")
        #expect(await eventually { session.runningRequestCount == 0 }, "the session lets it go once its handlers are on their way")
    }

    /// A body that would take days to arrive (a tebibyte, plain or gzip):
    /// collected whole before the limit was checked, it never failed (and
    /// a fast one filled memory); stopped as it passes the limit, it fails
    /// at once and the connection closes.
    @Test(arguments: [false, true])
    func aCollectedBodyIsStoppedAsItPassesTheLimit(compressed: Bool) async throws {
        let server = try LoopbackServer { _ in
            compressed
                ? .gzip(decodedLength: 1 << 40, chunkSize: 4 << 10, interval: 0.01)
                : .generated(length: 1 << 40, chunkSize: 64 << 10, interval: 0.01)
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let limit = 2 << 20
        let result = await response(within: 120) {
            session.request(server.url("/")).maximumResponseBodySize(limit).responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.kind == "tooLarge", "\(String(describing: result?.error))")
        if case .responseTooLarge(let reported)? = result?.error { #expect(reported == limit) }
        #expect(result?.data == nil)
        #expect(await eventually { server.openConnectionCount == 0 }, "the transfer was stopped")
    }
}
