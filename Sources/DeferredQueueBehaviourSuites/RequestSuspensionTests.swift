import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// `suspend()` and `resume()`: a suspended request sends nothing and hears
/// nothing of its transfer until it is resumed, then gets all of it, in order.
@Suite("Requests: suspend() and resume()")
struct RequestSuspensionTests {
    /// Long enough for a request that should not have started to have started.
    private static let quietPeriod: UInt64 = 300_000_000

    /// A session whose monitor records "suspend" and "resume".
    private static func sessionRecordingSuspensions() -> (Session, ClosureEventMonitor, Recorder<String>) {
        let events = Recorder<String>()
        let monitor = ClosureEventMonitor()
        monitor.requestDidSuspend = { _ in events.append("suspend") }
        monitor.requestDidResume = { _ in events.append("resume") }
        return (TestTransport.makeSession(eventMonitors: [monitor]), monitor, events)
    }

    @Test func aRequestSuspendedBeforeItStartsIsSentOnlyOnResume() async throws {
        let hits = Counter()
        let server = try LoopbackServer { _ in
            hits.increment()
            return .text("ok")
        }
        defer { server.shutdown() }
        let (session, monitor, events) = Self.sessionRecordingSuspensions()
        let request = session.request(server.url("/")).suspend()
        #expect(request.state == .suspended)
        #expect(request.isSuspended)
        let body = Recorder<String>()
        let done = Latch()
        request.responseString(queue: handlerQueue) { body.append($0.value ?? "failed"); done.arrive() }
        try await Task.sleep(nanoseconds: Self.quietPeriod)
        #expect(hits.count == 0, "a handler does not start a suspended request")
        #expect(request.state == .suspended)
        request.resume()
        #expect(await done.wait())
        #expect(body.events == ["ok"])
        #expect(hits.count == 1)
        #expect(request.state == .finished)
        await drained(monitor.queue)
        #expect(events.events == ["suspend", "resume"])
    }

    @Test func suspendingAndResumingManyTimesIsOneEventEach() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let (session, monitor, events) = Self.sessionRecordingSuspensions()
        let request = session.request(server.url("/"), shouldAutomaticallyResume: false)
        for _ in 0..<100 { request.suspend() }
        #expect(request.state == .suspended)
        for _ in 0..<100 { request.resume() }
        let result = await response { request.responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value == "ok")
        for _ in 0..<100 { request.suspend() }
        #expect(request.state == .finished, "a finished request is not suspended")
        await drained(monitor.queue)
        #expect(events.events == ["suspend", "resume"])
    }

    /// The body's chunks wait while the request is suspended and arrive
    /// whole and in order after `resume()`. The handler runs on the
    /// transport's callback queue and suspends at the first chunk, before
    /// the transport's next event is handled.
    @Test func aStreamSuspendedMidBodyGetsEveryChunkInOrderAfterResume() async throws {
        let length: Int64 = 4 << 20
        let server = try LoopbackServer { _ in .generated(length: length, chunkSize: 64 << 10, interval: 0.002) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let received = Recorder<Data>()
        let suspended = Latch()
        let done = Latch()
        let request = session.streamRequest(server.url("/"), timeout: .infinity)
        request.responseStream(on: request.callbackQueue) { [weak request] stream in
            switch stream.event {
            case .stream(.success(let chunk)):
                received.append(chunk)
                if received.events.count == 1 {
                    request?.suspend()
                    suspended.arrive()
                }
            case .complete(let completion):
                #expect(completion.error == nil, "\(String(describing: completion.error))")
                done.arrive()
            }
        }
        #expect(await suspended.wait())
        try await Task.sleep(nanoseconds: Self.quietPeriod)
        #expect(received.events.count == 1, "no chunk while suspended")
        #expect(request.state == .suspended)
        request.resume()
        #expect(await done.wait())
        let body = received.events.reduce(into: Data()) { $0.append($1) }
        #expect(body.count == Int(length))
        #expect(body == GeneratedContent.pattern.bytes(in: 0..<length), "every byte once, in order")
        #expect(request.state == .finished)
    }

    /// The attempt a retry would send waits for `resume()`.
    @Test func aRetryOfASuspendedRequestIsSentOnResume() async throws {
        let hits = Counter()
        let server = try LoopbackServer { _ in
            hits.increment() == 1 ? .text("busy", status: 503) : .text("ok")
        }
        defer { server.shutdown() }
        let asked = Latch()
        let retrier = Retrier { request, _, _, completion in
            request.suspend()
            completion(.retry)
            asked.arrive()
        }
        let session = TestTransport.makeSession(interceptor: retrier)
        let result = Recorder<String>()
        let done = Latch()
        let request = session.request(server.url("/")).validate()
        request.responseString(queue: handlerQueue) { result.append($0.value ?? "failed: \(String(describing: $0.error))"); done.arrive() }
        #expect(await asked.wait())
        try await Task.sleep(nanoseconds: Self.quietPeriod)
        #expect(hits.count == 1, "the retry waits for resume()")
        #expect(request.state == .suspended)
        request.resume()
        #expect(await done.wait())
        #expect(result.events == ["ok"])
        #expect(hits.count == 2)
        #expect(request.retryCount == 1)
    }

    @Test func cancellingASuspendedRequestCancelsItsHandlersOnce() async throws {
        // Slow enough that URLSession, which cannot be held back, stays far
        // below the 16 MiB a suspended stream may hold however late the
        // cancel (over 8 minutes), and no timeout ends the held-back stream first.
        let server = try LoopbackServer { _ in .generated(length: 64 << 20, chunkSize: 16 << 10, interval: 0.5) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let suspended = Latch()
        let completions = Recorder<Bool>()
        let done = Latch()
        let request = session.streamRequest(server.url("/"), timeout: .infinity)
        request.responseStream(on: request.callbackQueue) { [weak request] stream in
            switch stream.event {
            case .stream:
                if request?.state == .resumed {
                    request?.suspend()
                    suspended.arrive()
                }
            case .complete(let completion):
                completions.append(completion.error?.isExplicitlyCancelledError == true)
                done.arrive()
            }
        }
        #expect(await suspended.wait())
        request.cancel()
        #expect(await done.wait())
        #expect(completions.events == [true])
        #expect(request.state == .cancelled)
        #expect(await eventually { session.runningRequestCount == 0 })
    }

    /// Suspends `request` from its first download progress; the latch opens then.
    private static func suspendingOnItsFirstBytes(_ request: DataRequest) -> Latch {
        let suspended = Latch()
        let once = Counter()
        request.downloadProgress(queue: handlerQueue) { [weak request] _ in
            guard once.increment() == 1 else { return }
            request?.suspend()
            suspended.arrive()
        }
        return suspended
    }

    /// A request suspended mid-body, then released with its session: nothing
    /// can resume it, yet it kept its session, transport and connection (and
    /// on URLSession what kept arriving) until the resource timeout, days
    /// later, and its handler waited as long. Now it fails as abandoned.
    /// Resumed before the release, it holds its session again and completes.
    @Test(arguments: [false, true])
    func aRequestSuspendedWhileRunningAndReleasedWithItsSession(resumedFirst: Bool) async throws {
        let server = try LoopbackServer { _ in .generated(length: 1 << 20, chunkSize: 16 << 10, interval: 0.01) }
        defer { server.shutdown() }
        let done = Latch()
        let outcomes = Recorder<HTTPError?>()
        let sessions = WeakList<Session>()
        do {
            let session = TestTransport.makeSession()
            sessions.add(session)
            let request = session.request(server.url("/"))
            let suspended = Self.suspendingOnItsFirstBytes(request)
            request.responseData(queue: handlerQueue) { response in
                outcomes.append(response.error)
                done.arrive()
            }
            #expect(await suspended.wait())
            #expect(request.state == .suspended)
            if resumedFirst { request.resume() }
        }
        #expect(await done.wait(seconds: 60), "\(TestTransport.name): the handler still waits")
        #expect(outcomes.events.count == 1)
        let outcome = outcomes.events.first ?? nil
        if resumedFirst {
            #expect(outcome == nil, "\(TestTransport.name): \(String(describing: outcome))")
        } else if case .abandoned? = outcome {
        } else {
            Issue.record("\(TestTransport.name): \(String(describing: outcome))")
        }
        #expect(await eventually { sessions.aliveCount == 0 }, "the session is gone once nothing runs")
    }

    /// While its session is held, a request suspended mid-body keeps its
    /// transfer and is resumed through the session alone.
    @Test func aRequestSuspendedWhileRunningIsResumedThroughItsSession() async throws {
        let server = try LoopbackServer { _ in .generated(length: 1 << 20, chunkSize: 16 << 10, interval: 0.01) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let done = Latch()
        let outcomes = Recorder<HTTPError?>()
        do {
            let request = session.request(server.url("/"))
            let suspended = Self.suspendingOnItsFirstBytes(request)
            request.responseData(queue: handlerQueue) { response in
                outcomes.append(response.error)
                #expect(response.data?.count == 1 << 20)
                done.arrive()
            }
            #expect(await suspended.wait())
        }
        try await Task.sleep(nanoseconds: Self.quietPeriod)
        #expect(outcomes.events.isEmpty, "still suspended")
        session.withAllRequests { requests in
            for request in requests { request.resume() }
        }
        #expect(await done.wait(seconds: 60))
        #expect(outcomes.events.count == 1)
        #expect(outcomes.events.first.map { $0 == nil } == true, "\(String(describing: outcomes.events.first))")
    }

    /// A transport that waits for each chunk to be handled (AsyncHTTPClient)
    /// stops reading while the request is suspended; URLSession on Linux
    /// cannot be held back for one request: what it keeps sending is held up
    /// to 16 MiB, then the request fails rather than grow without bound.
    @Test func aSuspendedStreamHoldsBoundedMemory() async throws {
        try await MemoryHeavyWork.exclusively {
            let length: Int64 = 64 << 20
            let server = try LoopbackServer { _ in .generated(length: length, chunkSize: 256 << 10) }
            defer { server.shutdown() }
            let session = TestTransport.makeSession()
            let suspended = Latch()
            let done = Latch()
            let sizes = Recorder<Int>()
            let completion = Recorder<HTTPError?>()
            let request = session.streamRequest(server.url("/"), timeout: .infinity)
            request.responseStream(on: request.callbackQueue) { [weak request] stream in
                switch stream.event {
                case .stream(.success(let chunk)):
                    sizes.append(chunk.count)
                    if sizes.events.count == 1 {
                        request?.suspend()
                        suspended.arrive()
                    }
                case .complete(let end):
                    completion.append(end.error)
                    done.arrive()
                }
            }
            #expect(await suspended.wait())
            let heldBack = TestTransport.name != "URLSession"
            if heldBack {
                try await Task.sleep(nanoseconds: Self.quietPeriod)
                #expect(request.state == .suspended, "held back, not failed")
                request.resume()
                #expect(await done.wait())
                #expect(completion.events.count == 1)
                #expect(completion.events.first.map { $0 == nil } == true, "\(String(describing: completion.events.first))")
                #expect(sizes.events.reduce(0, +) == Int(length), "every byte once")
            } else {
                #expect(await done.wait())
                #expect(completion.events.first??.kind == "tooLarge", "\(String(describing: completion.events.first))")
            }
        }
    }
}
