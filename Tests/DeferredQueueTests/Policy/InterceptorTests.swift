import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Adapters and retriers are the session's: judged once, on MockTransport;
/// what each attempt sent is the transport's record.
@Suite("Interceptors: adapters before every attempt, retriers before any handler")
struct InterceptorTests {
    @Test func sessionAdaptersRunBeforeRequestAdapters() async throws {
        let fixture = pathFixture { _ in .json(#"{"ok":true}"#) }
        let order = Recorder<String>()
        let session = fixture.makeSession(interceptor: TagAdapter(name: "session", order: order))
        let report = await probe(session.request(fixture.url("/ok"), interceptor: TagAdapter(name: "request", order: order)))
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(order.events == ["session", "request"])
        #expect(fixture.headers("X-Adapted") == ["session,request"], "the request's adapter saw the session's result")
    }

    /// Alamofire 5.12's `interceptor(_:)`, `adapt(using:)` and `retry(using:)`:
    /// added to one request, after the session's and the request's own.
    @Test func interceptorsAddedToARequestRunAfterTheSessionsAndItsOwn() async throws {
        let hits = Counter()
        let fixture = pathFixture { _ in hits.increment() == 1 ? .text("busy", status: 503) : .json(#"{"ok":true}"#) }
        let order = Recorder<String>()
        let session = fixture.makeSession(interceptor: TagAdapter(name: "session", order: order))
        let request = session.request(fixture.url("/ok"), interceptor: TagAdapter(name: "made", order: order))
            .adapt(using: TagAdapter(name: "adapter", order: order))
            .interceptor(TagAdapter(name: "interceptor", order: order))
            .retry(using: ScriptedRetrier(name: "retrier", order: order, results: [.retry]))
        let report = await probe(request)
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(fixture.headers("X-Adapted") == Array(repeating: "session,made,adapter,interceptor", count: 2), "both attempts, in order")
        #expect(order.events.filter { $0 == "retrier" }.count == 1, "asked about the 503, which it retried")
        #expect(request.retryCount == 1)
    }

    /// Without any interceptor, nothing is asked and nothing retries: added
    /// ones are what makes a request retryable.
    @Test func aRetrierAddedToARequestOfASessionWithoutInterceptorsRetriesIt() async throws {
        let hits = Counter()
        let fixture = pathFixture { _ in hits.increment() <= 2 ? .text("busy", status: 503) : .json(#"{"ok":true}"#) }
        let session = fixture.makeSession()
        _ = await probe(session.request(fixture.url("/once")))
        #expect(hits.count == 1, "not retried")
        let request = session.request(fixture.url("/ok")).retry(using: ScriptedRetrier(name: "r", order: Recorder(), results: [.retry]))
        _ = await probe(request)
        #expect(hits.count == 3, "the second request was sent twice")
        #expect(request.retryCount == 1)
    }

    /// `response {}` is not a serializer: as in Alamofire, its outcome is not
    /// put to the retriers again once the request finished (a serializer's is).
    @Test func theUnserializedResponseHandlerDoesNotAskTheRetriersAgain() async throws {
        let fixture = pathFixture { _ in .text("failed", status: 500) }
        let plain = Recorder<String>()
        let session = fixture.makeSession(interceptor: ScriptedRetrier(name: "asked", order: plain))
        _ = await response { session.request(fixture.url("/fail")).response(queue: handlerQueue, completionHandler: $0) }
        #expect(plain.events == ["asked"], "once, about the attempt")
        // Also when the failure reaches it: a validation failure it delivers is not asked about again.
        let validated = Recorder<String>()
        let third = fixture.makeSession(interceptor: ScriptedRetrier(name: "asked", order: validated))
        let failed = await response { third.request(fixture.url("/fail")).validate().response(queue: handlerQueue, completionHandler: $0) }
        #expect(failed?.error?.kind == "status(500)")
        #expect(validated.events == ["asked"], "once, about the attempt")
        let serialized = Recorder<String>()
        let other = fixture.makeSession(interceptor: ScriptedRetrier(name: "asked", order: serialized))
        _ = await response { other.request(fixture.url("/fail")).validate().responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(serialized.events == ["asked", "asked"], "about the attempt, then about the serializer's failure")
    }

    @Test func sessionRetriersAreAskedBeforeRequestRetriersAsInAlamofire() async throws {
        let fixture = pathFixture { _ in .text("failed", status: 500) }
        let order = Recorder<String>()
        let session = fixture.makeSession(interceptor: ScriptedRetrier(name: "session", order: order))
        let request = session.request(fixture.url("/fail"), interceptor: ScriptedRetrier(name: "request", order: order))
        let report = await probe(request, validated: true)
        #expect(report?.allKinds.allSatisfy { $0 == "status(500)" } == true)
        // Asked about the attempt, then again by each response serializer
        // that rethrew the failure (as Alamofire asks): always the session's first.
        let pairs = stride(from: 0, to: order.events.count, by: 2).map { Array(order.events[$0..<min($0 + 2, order.events.count)]) }
        #expect(pairs.count > 1 && pairs.allSatisfy { $0 == ["session", "request"] }, "\(order.events)")
        #expect(fixture.paths.count == 1)
    }

    /// Alamofire's `requestQueue:`: every adapter of every attempt runs on
    /// it, also one that follows an adapter completing on another thread.
    @Test func adaptersRunOnTheSessionsRequestQueue() async throws {
        let hits = Counter()
        let fixture = pathFixture { _ in hits.increment() == 1 ? .text("busy", status: 503) : .json(#"{"ok":true}"#) }
        let key = DispatchSpecificKey<String>()
        let requestQueue = DispatchQueue(label: "request-queue")
        requestQueue.setSpecific(key: key, value: "request-queue")
        let seen = Recorder<String>()
        let record: @Sendable (String) -> Void = { name in seen.append("\(name):\(DispatchQueue.getSpecific(key: key) ?? "elsewhere")") }
        let sessionAdapter = Adapter { request, _, completion in
            record("session")
            DispatchQueue.global().async { completion(.success(request)) }
        }
        let requestAdapter = Adapter { request, _, completion in
            record("request")
            completion(.success(request))
        }
        let session = Session(
            transport: fixture.transport, requestQueue: requestQueue,
            interceptor: Interceptor(adapters: [sessionAdapter], retriers: [ScriptedRetrier(name: "r", order: Recorder(), results: [.retry])])
        )
        #expect(session.requestQueue === requestQueue)
        let result = await response { session.request(fixture.url("/ok"), interceptor: requestAdapter).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.response?.statusCode == 200)
        #expect(seen.events == ["session:request-queue", "request:request-queue", "session:request-queue", "request:request-queue"])
    }

    @Test func anAdapterRunsForEveryAttemptIncludingRetriesAndRedirects() async throws {
        let targetHits = Counter()
        let fixture = pathFixture { request in
            switch request.url?.path {
            case "/start": .redirect(to: "/target", status: 302)
            default: targetHits.increment() == 1 ? .text("busy", status: 503) : .json(#"{"ok":true}"#)
            }
        }
        let adapter = CountingAdapter()
        let retrier = ScriptedRetrier(name: "retrier", order: Recorder(), results: [.retry])
        let session = fixture.makeSession(interceptor: Interceptor(adapters: [adapter], retriers: [retrier]))
        let report = await probe(session.request(fixture.url("/start")))
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(fixture.paths == ["/start", "/target", "/start", "/target"])
        #expect(fixture.headers("X-Attempt") == ["1", "2", "3", "4"], "each attempt went out adapted")
        #expect(adapter.calls.count == 4)
    }

    @Test func anAdapterThatThrowsFailsEveryHandlerAndSendsNothing() async throws {
        let fixture = pathFixture { _ in .json(#"{"ok":true}"#) }
        let session = fixture.makeSession(interceptor: ThrowingAdapter())
        let request = session.request(fixture.url("/ok"))
        let report = await probe(request)
        #expect(report?.eachRanOnce == true)
        #expect(report?.allKinds.allSatisfy { $0 == "adaptation" } == true)
        let error = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }?.error
        #expect(error?.underlyingError as? TestError == TestError(42))
        #expect(fixture.requests.isEmpty)
    }

    @Test func retryWithDelayRetriesAfterTheDelay() async throws {
        let hits = Counter()
        let fixture = pathFixture { _ in hits.increment() == 1 ? .text("busy", status: 503) : .json(#"{"ok":true}"#) }
        let retrier = ScriptedRetrier(name: "retrier", order: Recorder(), results: [.retryWithDelay(0.05)])
        let session = fixture.makeSession()
        let request = session.request(fixture.url("/ok"), interceptor: retrier)
        let report = await probe(request)
        #expect(report?.allKinds.allSatisfy { $0 == "ok" } == true)
        #expect(fixture.paths.count == 2)
        #expect(request.retryCount == 1)
    }

    @Test func doNotRetryWithErrorFailsWithRequestRetryFailed() async throws {
        let fixture = pathFixture { _ in .text("failed", status: 500) }
        let retrier = ScriptedRetrier(name: "retrier", order: Recorder(), results: [.doNotRetryWithError(TestError(9))])
        let session = fixture.makeSession(retryPolicy: RetryPolicy(exponentialBackoffScale: 0.01))
        let request = session.request(fixture.url("/fail"), interceptor: retrier)
        let report = await probe(request)
        #expect(report?.allKinds.allSatisfy { $0 == "retryFailed" } == true)
        let error = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }?.error
        guard case .requestRetryFailed(let retryError, let original)? = error else {
            Issue.record("expected requestRetryFailed, got \(String(describing: error))")
            return
        }
        #expect(retryError as? TestError == TestError(9))
        #expect(original.responseCode == 500)
        #expect(fixture.paths.count == 1, "the session's policy was not asked after the retrier's decision")
    }

    // MARK: - Cancellation

    @Test func cancellingDuringAnAdapterSendsNothingAndDeliversCancelledOnce() async throws {
        let fixture = pathFixture { _ in .json(#"{"ok":true}"#) }
        let gate = Gate()
        let after = CountingAdapter()
        let session = fixture.makeSession(interceptor: GateAdapter(gate: gate))
        let request = session.request(fixture.url("/protected"), interceptor: after)
        async let report = probe(request)
        #expect(await gate.entered.wait())
        request.cancel()
        gate.release.arrive()
        let finished = await report
        #expect(finished?.eachRanOnce == true)
        #expect(finished?.allKinds.allSatisfy { $0 == "cancelled" } == true)
        #expect(await gate.returned.wait())
        await fixture.roundTrip()
        #expect(after.calls.count == 0, "the request's adapter did not run after the cancellation")
        #expect(fixture.paths == ["/control"])
    }

    @Test func cancellingDuringARetrierStartsNoNewAttempt() async throws {
        let fixture = pathFixture { _ in .text("failed", status: 500) }
        let gate = Gate()
        let session = fixture.makeSession()
        let request = session.request(fixture.url("/fail"), interceptor: GateRetrier(gate: gate))
        async let report = probe(request)
        #expect(await gate.entered.wait())
        request.cancel()
        gate.release.arrive()
        let finished = await report
        #expect(finished?.eachRanOnce == true)
        #expect(finished?.allKinds.allSatisfy { $0 == "cancelled" } == true)
        #expect(await gate.returned.wait())
        await fixture.roundTrip()
        #expect(fixture.paths == ["/fail", "/control"])
    }

    @Test func cancellingDuringARetryDelayStartsNoNewAttempt() async throws {
        // The cancel must land inside the delay. The retry's timer cannot
        // fire sooner than `delay` after the request was made, so a cancel
        // that returned sooner did; on a loaded machine (the sanitizer runs)
        // the retrying event can reach this test seconds late, and a cancel
        // that came after the delay proves nothing: the scenario runs again,
        // with a longer delay.
        let clock = ContinuousClock()
        for delay in [3.0, 12.0, 48.0] {
            let fixture = pathFixture { _ in .text("failed", status: 500) }
            let retrying = Latch()
            let monitor = ClosureEventMonitor(requestIsRetrying: { _ in retrying.arrive() })
            let adapter = CountingAdapter()
            let session = fixture.makeSession(interceptor: adapter, eventMonitors: [monitor])
            let retrier = ScriptedRetrier(name: "retrier", order: Recorder(), results: [.retryWithDelay(delay)])
            let made = clock.now
            let request = session.request(fixture.url("/fail"), interceptor: retrier)
            async let report = probe(request)
            #expect(await retrying.wait())
            request.cancel()
            guard clock.now - made < .seconds(delay) else {
                _ = await report
                continue
            }
            let finished = await report
            #expect(finished?.eachRanOnce == true)
            #expect(finished?.allKinds.allSatisfy { $0 == "cancelled" } == true)
            // Past the delay (a margin, not a timing assertion): the retry would have started by now.
            try await Task.sleep(nanoseconds: UInt64((delay + 0.5) * 1e9))
            await fixture.roundTrip()
            #expect(fixture.paths == ["/fail", "/control"])
            #expect(adapter.calls.count == 1, "the adapters did not run for a retry")
            return
        }
        Issue.record("no cancel landed inside a retry delay, even of 48 s")
    }

    /// A cancelled request waiting out a long retry delay is released at
    /// once: the delay's timer lets go of it (a dispatch `asyncAfter` held
    /// it, and what its handlers capture, until the deadline).
    @Test func cancellingDuringARetryDelayReleasesTheRequestAtOnce() async throws {
        let fixture = pathFixture { _ in .text("failed", status: 500) }
        let retrying = Latch()
        let monitor = ClosureEventMonitor(requestIsRetrying: { _ in retrying.arrive() })
        let session = fixture.makeSession(eventMonitors: [monitor])
        let retrier = ScriptedRetrier(name: "retrier", order: Recorder(), results: [.retryWithDelay(3_600)])
        let requests = WeakList<DataRequest>()
        let handled = Latch()
        do {
            let request = session.request(fixture.url("/fail"), interceptor: retrier).validate()
            requests.add(request)
            request.responseData(queue: handlerQueue) { _ in handled.arrive() }
            #expect(await retrying.wait())
            request.cancel()
        }
        #expect(await handled.wait())
        #expect(await eventually { requests.aliveCount == 0 }, "the cancelled request was freed")
    }

    /// Alamofire's `retryRequired`, `delay` and `error`: each says what its case carries, and nothing for the others.
    @Test func aRetryResultSaysWhetherItRetriesAfterWhatDelayAndWithWhichError() {
        struct Refused: Error {}
        #expect(RetryResult.retry.retryRequired)
        #expect(RetryResult.retryWithDelay(1.5).retryRequired)
        #expect(!RetryResult.doNotRetry.retryRequired)
        #expect(!RetryResult.doNotRetryWithError(Refused()).retryRequired)
        #expect(RetryResult.retryWithDelay(1.5).delay == 1.5)
        #expect(RetryResult.retry.delay == nil)
        #expect(RetryResult.doNotRetry.delay == nil)
        #expect(RetryResult.doNotRetryWithError(Refused()).error is Refused)
        #expect(RetryResult.retry.error == nil)
        #expect(RetryResult.retryWithDelay(1).error == nil)
        #expect(RetryResult.doNotRetry.error == nil)
    }
}

// MARK: - Fixtures

/// A fixture that answers every path but `/control` with `reply`; what it
/// saw is the transport's record.
private func pathFixture(_ reply: @escaping @Sendable (URLRequest) -> MockReply) -> PolicyFixture {
    PolicyFixture { request in request.url?.path == "/control" ? .text("ok") : reply(request) }
}

extension PolicyFixture {
    /// The path of every attempt, in order.
    fileprivate var paths: [String] { requests.map { $0.url?.path ?? "" } }

    /// The value of header `name` in each attempt that has it, in order.
    fileprivate func headers(_ name: String) -> [String] {
        requests.compactMap { $0.value(forHTTPHeaderField: name) }
    }

    /// One request to `/control` on the plain session, on the same
    /// transport: anything the request under test started before it has
    /// been recorded by the time it returns.
    fileprivate func roundTrip() async {
        _ = await session.request(url("/control")).serializingData().result
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
        _ = await release.wait(seconds: 600)  // past any stall of a loaded machine
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
