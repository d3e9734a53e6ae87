import DeferredQueueBehaviourSuites
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Interceptors: adapters before every attempt, retriers before any handler")
struct InterceptorTests {
    @Test func sessionAdaptersRunBeforeRequestAdapters() async throws {
        let server = try PathServer { .echo($0) }
        let order = Recorder<String>()
        let session = TestTransport.makeSession(interceptor: TagAdapter(name: "session", order: order))
        let report = await probe(session.request(server.url("/echo"), interceptor: TagAdapter(name: "request", order: order)))
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(order.events == ["session", "request"])
        #expect(report?.json?["headers"]["X-Adapted"] == "session,request", "the request's adapter saw the session's result")
    }

    @Test func requestRetriersAreAskedBeforeSessionRetriers() async throws {
        let server = try PathServer { _ in .text("failed", status: 500) }
        let order = Recorder<String>()
        let session = TestTransport.makeSession(interceptor: ScriptedRetrier(name: "session", order: order))
        let request = session.request(server.url("/fail"), interceptor: ScriptedRetrier(name: "request", order: order))
        let report = await probe(request, validated: true)
        #expect(report?.allKinds.allSatisfy { $0 == "status(500)" } == true)
        #expect(order.events == ["request", "session"])
        #expect(server.paths.count == 1)
    }

    @Test func anAdapterRunsForEveryAttemptIncludingRetriesAndRedirects() async throws {
        let targetHits = Counter()
        let server = try PathServer { request in
            switch request.path {
            case "/start": return .redirect(to: "/target", status: 302)
            default: return targetHits.increment() == 1 ? .text("busy", status: 503) : .echo(request)
            }
        }
        let adapter = CountingAdapter()
        let retrier = ScriptedRetrier(name: "retrier", order: Recorder(), results: [.retry])
        let session = TestTransport.makeSession(interceptor: Interceptor(adapters: [adapter], retriers: [retrier]))
        let report = await probe(session.request(server.url("/start")))
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(server.paths.events == ["/start", "/target", "/start", "/target"])
        #expect(server.headers("X-Attempt") == ["1", "2", "3", "4"], "each attempt went out adapted")
        #expect(adapter.calls.count == 4)
    }

    @Test func anAdapterThatThrowsFailsEveryHandlerAndSendsNothing() async throws {
        let server = try PathServer { .echo($0) }
        let session = TestTransport.makeSession(interceptor: ThrowingAdapter())
        let request = session.request(server.url("/echo"))
        let report = await probe(request)
        #expect(report?.eachRanOnce == true)
        #expect(report?.allKinds.allSatisfy { $0 == "adaptation" } == true)
        let error = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }?.error
        #expect(error?.underlyingError as? TestError == TestError(42))
        #expect(server.requestCount == 0)
    }

    @Test func retryWithDelayRetriesAfterTheDelay() async throws {
        let hits = Counter()
        let server = try PathServer { hits.increment() == 1 ? .text("busy", status: 503) : .echo($0) }
        let retrier = ScriptedRetrier(name: "retrier", order: Recorder(), results: [.retryWithDelay(0.05)])
        let session = TestTransport.makeSession()
        let request = session.request(server.url("/echo"), interceptor: retrier)
        let report = await probe(request)
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(server.paths.count == 2)
        #expect(request.retryCount == 1)
    }

    @Test func doNotRetryWithErrorFailsWithRequestRetryFailed() async throws {
        let server = try PathServer { _ in .text("failed", status: 500) }
        let retrier = ScriptedRetrier(name: "retrier", order: Recorder(), results: [.doNotRetryWithError(TestError(9))])
        let session = TestTransport.makeSession(retryPolicy: RetryPolicy(backoffScale: 0.01))
        let request = session.request(server.url("/fail"), interceptor: retrier)
        let report = await probe(request)
        #expect(report?.allKinds.allSatisfy { $0 == "retryFailed" } == true)
        let error = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }?.error
        guard case .requestRetryFailed(let retryError, let original)? = error else {
            Issue.record("expected requestRetryFailed, got \(String(describing: error))")
            return
        }
        #expect(retryError as? TestError == TestError(9))
        #expect(original.responseCode == 500)
        #expect(server.paths.count == 1, "the session's policy was not asked after the retrier's decision")
    }

    // MARK: - Cancellation

    @Test func cancellingDuringAnAdapterSendsNothingAndDeliversCancelledOnce() async throws {
        let server = try PathServer { .echo($0) }
        let gate = Gate()
        let after = CountingAdapter()
        let session = TestTransport.makeSession(interceptor: GateAdapter(gate: gate))
        let request = session.request(server.url("/protected"), interceptor: after)
        async let report = probe(request)
        #expect(await gate.entered.wait())
        request.cancel()
        gate.release.arrive()
        let finished = await report
        #expect(finished?.eachRanOnce == true)
        #expect(finished?.allKinds.allSatisfy { $0 == "cancelled" } == true)
        #expect(await gate.returned.wait())
        await server.roundTrip()
        #expect(after.calls.count == 0, "the request's adapter did not run after the cancellation")
        #expect(server.paths.events == ["/control"])
    }

    @Test func cancellingDuringARetrierStartsNoNewAttempt() async throws {
        let server = try PathServer { _ in .text("failed", status: 500) }
        let gate = Gate()
        let session = TestTransport.makeSession()
        let request = session.request(server.url("/fail"), interceptor: GateRetrier(gate: gate))
        async let report = probe(request)
        #expect(await gate.entered.wait())
        request.cancel()
        gate.release.arrive()
        let finished = await report
        #expect(finished?.eachRanOnce == true)
        #expect(finished?.allKinds.allSatisfy { $0 == "cancelled" } == true)
        #expect(await gate.returned.wait())
        await server.roundTrip()
        #expect(server.paths.events == ["/fail", "/control"])
    }

    @Test func cancellingDuringARetryDelayStartsNoNewAttempt() async throws {
        let server = try PathServer { _ in .text("failed", status: 500) }
        let retrying = Latch()
        let monitor = ClosureEventMonitor(requestIsRetrying: { _ in retrying.arrive() })
        let adapter = CountingAdapter()
        let session = TestTransport.makeSession(interceptor: adapter, eventMonitors: [monitor])
        let retrier = ScriptedRetrier(name: "retrier", order: Recorder(), results: [.retryWithDelay(0.2)])
        let request = session.request(server.url("/fail"), interceptor: retrier)
        async let report = probe(request)
        #expect(await retrying.wait())
        request.cancel()
        let finished = await report
        #expect(finished?.eachRanOnce == true)
        #expect(finished?.allKinds.allSatisfy { $0 == "cancelled" } == true)
        // Past the delay (a margin, not a timing assertion): the retry would have started by now.
        try await Task.sleep(nanoseconds: 600_000_000)
        await server.roundTrip()
        #expect(server.paths.events == ["/fail", "/control"])
        #expect(adapter.calls.count == 1, "the adapters did not run for a retry")
    }
}

// MARK: - Fixtures

/// A loopback server that answers every path but `/control` with `reply`
/// and records the paths and headers it saw, in order.
private final class PathServer: Sendable {
    private let server: LoopbackServer
    let paths = Recorder<String>()
    private let seenHeaders = Recorder<[(name: String, value: String)]>()

    init(_ reply: @escaping @Sendable (ServerRequest) -> Reply) throws {
        let (paths, seenHeaders) = (paths, seenHeaders)
        server = try LoopbackServer { request in
            paths.append(request.path)
            seenHeaders.append(request.headers)
            return request.path == "/control" ? .text("ok") : reply(request)
        }
    }

    deinit { server.shutdown() }

    func url(_ path: String) -> URL { server.url(path) }
    var requestCount: Int { server.requestCount }

    /// The value of header `name` in each request, in order.
    func headers(_ name: String) -> [String] {
        seenHeaders.events.compactMap { fields in fields.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    /// One request to `/control` on a plain session: anything the client
    /// started before it has reached the server by the time it returns.
    func roundTrip() async {
        _ = await TestTransport.makeSession().request(url("/control")).serializingData().result
    }
}

/// Appends its name to `X-Adapted` and to `order`.
private struct TagAdapter: RequestInterceptor {
    let name: String
    let order: Recorder<String>
    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        order.append(name)
        var adapted = urlRequest
        let previous = adapted.value(forHTTPHeaderField: "X-Adapted")
        adapted.setValue(previous.map { "\($0),\(name)" } ?? name, forHTTPHeaderField: "X-Adapted")
        return adapted
    }
}

/// Numbers the attempts it adapts in `X-Attempt`.
private final class CountingAdapter: RequestInterceptor, Sendable {
    let calls = Counter()
    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        var adapted = urlRequest
        adapted.setValue("\(calls.increment())", forHTTPHeaderField: "X-Attempt")
        return adapted
    }
}

private struct ThrowingAdapter: RequestInterceptor {
    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        throw TestError(42)
    }
}

/// Records that it was asked, then answers `results[n]` for the `n`th question
/// (`.doNotRetry` once they run out).
private final class ScriptedRetrier: RequestInterceptor, Sendable {
    let name: String
    let order: Recorder<String>
    let results: [RetryResult]
    private let asked = Counter()

    init(name: String, order: Recorder<String>, results: [RetryResult] = []) {
        (self.name, self.order, self.results) = (name, order, results)
    }

    func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        order.append(name)
        let index = asked.increment() - 1
        return index < results.count ? results[index] : .doNotRetry
    }
}

/// Latches that hold an adapter or retrier until the test releases it.
private struct Gate {
    let entered = Latch()
    let release = Latch()
    let returned = Latch()

    func pass() async {
        entered.arrive()
        _ = await release.wait()
        returned.arrive()
    }
}

private struct GateAdapter: RequestInterceptor {
    let gate: Gate
    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        await gate.pass()
        return urlRequest
    }
}

/// Waits at the gate, then asks for a retry.
private struct GateRetrier: RequestInterceptor {
    let gate: Gate
    func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        await gate.pass()
        return .retry
    }
}
