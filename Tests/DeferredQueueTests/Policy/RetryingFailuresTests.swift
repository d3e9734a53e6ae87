import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

/// The failures Alamofire's retriers see beyond the transport's: a
/// validator's verdict, an adapter's error, and a response serializer's
/// failure, which parks its handler until the retried request ends.
@Suite("Retrying: validation, adapter and serializer failures reach the retriers")
struct RetryingFailuresTests {
    /// Answers `first` to the first request, `later` to the others.
    private static func fixture(first: MockReply, later: MockReply) -> (PolicyFixture, Counter) {
        let hits = Counter()
        let fixture = PolicyFixture { request in
            guard request.url?.path == "/flaky" else { return nil }
            return hits.increment() == 1 ? first : later
        }
        return (fixture, hits)
    }

    @Test func aContentTypeValidationFailureIsRetriedAndHandlersSeeOnlyTheFinalAttempt() async throws {
        let (fixture, hits) = Self.fixture(first: .text("not json"), later: .json(#"{"ok":true}"#))
        let retrier = RecordingRetrier(retrying: 1)
        let session = fixture.makeSession(interceptor: retrier)
        let request = session.request(fixture.url("/flaky")).validate(contentType: ["application/json"])
        let result = await response { request.responseDecodable(of: [String: Bool].self, queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value == ["ok": true])
        #expect(hits.count == 2)
        #expect(request.retryCount == 1)
        guard case .responseValidationFailed(reason: .unacceptableContentType)? = retrier.errors.first else {
            Issue.record("the retrier saw \(retrier.errors)")
            return
        }
        #expect(retrier.errors.count == 1, "the final attempt passed: nothing more to decide")
    }

    @Test func aCustomValidatorJudgesEveryAttemptBeforeTheRetriersDecide() async throws {
        let (fixture, hits) = Self.fixture(first: .json(#"{"ready":false}"#), later: .json(#"{"ready":true}"#))
        let judged = Recorder<String>()
        let session = fixture.makeSession(interceptor: RecordingRetrier(retrying: 1))
        let request = session.request(fixture.url("/flaky")).validate { _, _, data in
            let body = String(decoding: data ?? Data(), as: UTF8.self)
            judged.append(body)
            return body.contains("true") ? .success(()) : .failure(TestError(7))
        }
        let result = await response { request.responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value == #"{"ready":true}"#)
        #expect(judged.events == [#"{"ready":false}"#, #"{"ready":true}"#], "once per attempt, not again on the handler queue")
        #expect(hits.count == 2)
        #expect(request.error == nil)
    }

    @Test func aValidationFailureNobodyRetriesReachesTheHandlersAfterTheValidator() async throws {
        let (fixture, _) = Self.fixture(first: .text("plain"), later: .text("plain"))
        let retrier = RecordingRetrier(retrying: 0)
        let session = fixture.makeSession(interceptor: retrier)
        let request = session.request(fixture.url("/flaky"))
        let before = Recorder<Bool>()
        request.response(queue: handlerQueue) { before.append($0.error == nil) }
        request.validate(contentType: ["application/json"])
        let after = await response { request.responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(before.events == [true], "validate() affects the handlers after it")
        #expect(after?.error?.isResponseValidationError == true)
        // Asked by the attempt, then by the string serializer that rethrew the failure (as Alamofire asks).
        #expect(retrier.errors.count == 2)
    }

    @Test func anAdapterErrorReachesTheRetriers() async throws {
        let (fixture, _) = Self.fixture(first: .json("{}"), later: .json("{}"))
        let adapted = Counter()
        let adapter = Adapter { request, _, completion in
            adapted.increment() == 1 ? completion(.failure(TestError(3))) : completion(.success(request))
        }
        let retrier = RecordingRetrier(retrying: 1)
        let session = fixture.makeSession(interceptor: Interceptor(adapters: [adapter], retriers: [retrier]))
        let request = session.request(fixture.url("/flaky"))
        let result = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value == Data("{}".utf8))
        #expect(adapted.count == 2)
        guard case .requestAdaptationFailed? = retrier.errors.first else {
            Issue.record("the retrier saw \(retrier.errors)")
            return
        }
    }

    /// The serializer's handler runs once, on the final attempt; a handler
    /// chained after it waits, and sees the same attempt.
    @Test func aSerializerFailureRetriesAndItsHandlerRunsOnceOnTheFinalAttempt() async throws {
        let (fixture, hits) = Self.fixture(first: .json("[not json"), later: .json(#"{"ok":true}"#))
        let retrier = RecordingRetrier(retrying: 1)
        let session = fixture.makeSession(interceptor: retrier)
        let order = Recorder<String>()
        let done = Latch()
        let request = session.request(fixture.url("/flaky"))
            .responseDecodable(of: [String: Bool].self, queue: handlerQueue) { response in
                order.append("decoded:\(response.value?["ok"].map(String.init) ?? "failed")")
            }
            .responseString(queue: handlerQueue) { response in
                order.append("string:\(response.value ?? "failed")")
                done.arrive()
            }
        #expect(await done.wait())
        await drained(handlerQueue)
        #expect(order.events == ["decoded:true", #"string:{"ok":true}"#])
        #expect(hits.count == 2)
        #expect(request.retryCount == 1)
        #expect(request.tasks.map(\.attempt) == [1, 2], "the attempt the serializer refused, then the retry")
        #expect(request.state == .finished)
        #expect(request.response?.statusCode == 200)
        guard case .responseSerializationFailed? = retrier.errors.first else {
            Issue.record("the retrier saw \(retrier.errors)")
            return
        }
        #expect(await eventually { session.runningRequestCount == 0 })
    }

    /// A download's serializer may retry it too; the handlers after it see
    /// the final attempt's file.
    @Test func aDownloadSerializerFailureRetriesAndItsHandlerRunsOnceOnTheFinalAttempt() async throws {
        let (fixture, hits) = Self.fixture(first: .json("[not json"), later: .json(#"{"ok":true}"#))
        let retrier = RecordingRetrier(retrying: 1)
        let session = fixture.makeSession(interceptor: retrier)
        let order = Recorder<String>()
        let files = Recorder<URL>()
        let done = Latch()
        // Every attempt's file lands in a directory the test removes: the
        // first attempt's, which no handler sees, with the others.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueueTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = session.download(fixture.url("/flaky"), to: { _, _ in (directory.appendingPathComponent(UUID().uuidString), []) })
            .responseDecodable(of: [String: Bool].self, queue: handlerQueue) { response in
                order.append("decoded:\(response.value?["ok"].map(String.init) ?? "failed")")
                if let url = response.fileURL { files.append(url) }
            }
            .responseURL(queue: handlerQueue) { response in
                let body = response.fileURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) }
                order.append("file:\(body ?? "none")")
                done.arrive()
            }
        #expect(await done.wait())
        await drained(handlerQueue)
        defer { for file in files.events { try? FileManager.default.removeItem(at: file) } }
        #expect(order.events == ["decoded:true", #"file:{"ok":true}"#])
        #expect(hits.count == 2)
        #expect(request.retryCount == 1)
        guard case .responseSerializationFailed? = retrier.errors.first else {
            Issue.record("the retrier saw \(retrier.errors)")
            return
        }
    }

    @Test func aSerializerFailureRetriedUntilTheRetrierGivesUpDeliversTheLastFailure() async throws {
        let (fixture, hits) = Self.fixture(first: .json("[not json"), later: .json("[still not json"))
        let retrier = RecordingRetrier(retrying: 2)
        let session = fixture.makeSession(interceptor: retrier)
        let request = session.request(fixture.url("/flaky"))
        let calls = Counter()
        let result = await response { completion in
            request.responseDecodable(of: [String: Bool].self, queue: handlerQueue) { response in
                calls.increment()
                completion(response)
            }
        }
        #expect(result?.error?.isResponseSerializationError == true)
        #expect(result?.data == Data("[still not json".utf8))
        #expect(hits.count == 3)
        #expect(request.retryCount == 2)
        await drained(handlerQueue)
        #expect(calls.count == 1)
    }

    @Test func aRetrierThatFailsGivesTheSerializersHandlerRequestRetryFailed() async throws {
        let (fixture, hits) = Self.fixture(first: .json("[not json"), later: .json("[]"))
        let retrier = Retrier { _, _, _, completion in completion(.doNotRetryWithError(TestError(5))) }
        let session = fixture.makeSession(interceptor: retrier)
        let result = await response { session.request(fixture.url("/flaky")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        guard case .requestRetryFailed(let retryError, let original)? = result?.error else {
            Issue.record("expected requestRetryFailed, got \(String(describing: result?.error))")
            return
        }
        #expect(retryError as? TestError == TestError(5))
        #expect(original.isResponseSerializationError)
        #expect(hits.count == 1)
    }

    /// Cancelled while the retried attempt waits for its delay: the parked
    /// handler and the ones after it each receive the cancellation, once.
    @Test func cancellingWhileASerializerWaitsForItsRetryCancelsEveryHandlerOnce() async throws {
        let (fixture, hits) = Self.fixture(first: .json("[not json"), later: .json("{}"))
        let asked = Latch()
        let decided = Latch()
        let retrier = Retrier { _, _, _, completion in
            asked.arrive()
            completion(.retryWithDelay(3_600))
            decided.arrive()   // the reopening, registry included, is done
        }
        let session = fixture.makeSession(interceptor: retrier)
        let outcomes = Recorder<String>()
        let done = Latch(count: 2)
        let request = session.request(fixture.url("/flaky"))
            .responseDecodable(of: [String: Bool].self, queue: handlerQueue) { response in
                outcomes.append(response.error?.isExplicitlyCancelledError == true ? "cancelled" : "other")
                done.arrive()
            }
            .response(queue: handlerQueue) { response in
                outcomes.append(response.error?.isExplicitlyCancelledError == true ? "cancelled" : "other")
                done.arrive()
            }
        #expect(await asked.wait())
        #expect(await eventually { request.state == RequestState.resumed }, "reopened to retry")
        request.cancel()
        #expect(await done.wait())
        await drained(handlerQueue)
        #expect(outcomes.events == ["cancelled", "cancelled"])
        #expect(hits.count == 1)
        // Not polled: a request that rejoined the registry after the cancel left it would stay.
        #expect(await decided.wait())
        #expect(session.runningRequestCount == 0)
    }

    /// A request that could not be built has nothing to send again: a
    /// retrier that asks for a retry cannot make its handler wait forever.
    @Test func aRequestThatCouldNotBeBuiltIsNotReopened() async throws {
        let asked = Counter()
        let retrier = Retrier { _, _, _, completion in
            asked.increment()
            completion(.retry)
        }
        let session = PolicyFixture().makeSession(interceptor: retrier)
        let request = session.request("http://bad host/")
        let result = await response { request.responseDecodable(of: [String: Bool].self, queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.isInvalidURLError == true)
        #expect(request.state == .finished)
        #expect(asked.count == 1, "asked once, by the serializer; its retry is refused")
    }

    /// Past the session's deadline the request is finished with `timedOut`
    /// and cannot be reopened: its serializer's handler asks no retrier
    /// about it, so one that never answers cannot leave the handler waiting
    /// on a request nothing can cancel any more.
    @Test func pastTheDeadlineASerializerAsksNoRetrier() async throws {
        let asked = Counter()
        let silent = Retrier { _, _, _, _ in asked.increment() }
        let fixture = PolicyFixture { _ in .status(500) }
        // Long enough for the attempt to end before it on a loaded machine.
        let session = Session(transport: fixture.transport, interceptor: silent, resourceTimeout: 3)
        let request = session.request(fixture.url("/fails"))
        let result = await response(within: 60) { request.responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.urlError?.code == .timedOut, "\(String(describing: result?.result))")
        #expect(asked.count == 1, "asked once, about the attempt, and never answered")
        #expect(request.state == .finished)
    }

    /// A retrier asked about a serializer's failure before the deadline that
    /// never answers: the session's deadline for the request still ends the
    /// wait, as it ends a running request, and the handler receives `timedOut`.
    @Test func aRetrierThatNeverAnswersAboutASerializerFailureMeetsTheDeadline() async throws {
        let asked = Counter()
        let silent = Retrier { _, _, _, _ in asked.increment() }
        let fixture = PolicyFixture { _ in .json("[not json") }
        // Seconds: the attempt must end, and the serializer ask, before it,
        // on a loaded machine too.
        let session = Session(transport: fixture.transport, interceptor: silent, resourceTimeout: 15)
        let request = session.request(fixture.url("/json"))
        // A queue of its own: behind the shared `handlerQueue`'s backlog
        // (other suites' thousands of requests), the serializer could come
        // after the deadline and ask nothing.
        let queue = DispatchQueue(label: "aRetrierThatNeverAnswers")
        let result = await response {
            request.responseDecodable(of: [String].self, queue: queue, completionHandler: $0)
        }
        #expect(result?.error?.urlError?.code == .timedOut, "\(String(describing: result?.result))")
        #expect(asked.count == 1, "asked once, by the serializer, and never answered")
    }

    /// ``Request/cancel()`` ends a serializer's wait for a retrier that
    /// never answers, on a request that has finished (without a deadline
    /// nothing else would): that handler receives `cancelled`, those after it
    /// the response they would have seen; the request stays finished.
    @Test func cancellingEndsASerializersWaitForARetrierThatNeverAnswers() async throws {
        let asked = Counter()
        let silent = Retrier { _, _, _, _ in asked.increment() }
        let fixture = PolicyFixture { _ in .json("[not json") }
        let session = Session(transport: fixture.transport, interceptor: silent)
        let outcomes = Recorder<String>()
        let done = Latch()
        let request = session.request(fixture.url("/json"))
            .responseDecodable(of: [String].self, queue: handlerQueue) { outcomes.append($0.error?.kind ?? "ok") }
            .responseString(queue: handlerQueue) { response in
                outcomes.append(response.value ?? "failed")
                done.arrive()
            }
        #expect(await eventually { asked.count == 1 })
        #expect(request.state == .finished)
        request.cancel()
        #expect(await done.wait())
        #expect(outcomes.events == ["cancelled", "[not json"])
        #expect(request.state == .finished)
    }

    /// An adapter, or a retrier asked about a transport failure, that never
    /// calls its completion: the request waits (its `timeout` times the
    /// transfer, not them), until `cancel()` or the session's deadline ends
    /// it — the two ways out the protocols' documentation names.
    @Test(arguments: ["adapter", "retrier"], ["cancel", "deadline"])
    func anInterceptorThatNeverAnswersWaitsForCancelOrTheDeadline(_ silent: String, _ end: String) async throws {
        let asked = Counter()
        let interceptor: any RequestInterceptor = silent == "adapter"
            ? Adapter { _, _, _ in asked.increment() }
            : Retrier { _, _, _, _ in asked.increment() }
        let fixture = PolicyFixture { _ in .failure(.networkConnectionLost) }
        let session = Session(transport: fixture.transport, interceptor: interceptor, resourceTimeout: end == "deadline" ? 3 : nil)
        let request = session.request(fixture.url("/fails"), timeout: 0.5)
        let outcomes = Recorder<HTTPError?>()
        let done = Latch()
        request.response(queue: handlerQueue) { response in
            outcomes.append(response.error)
            done.arrive()
        }
        #expect(await eventually { asked.count == 1 })
        if end == "cancel" {
            // Four request timeouts: long enough for a timeout that applied to have ended it.
            try await Task.sleep(nanoseconds: 2_000_000_000)
            #expect(outcomes.events.isEmpty, "the request's timeout does not end the wait")
            request.cancel()
        }
        #expect(await done.wait(seconds: 60))
        #expect(outcomes.events.count == 1)
        let error = try #require(outcomes.events.first ?? nil)
        if end == "cancel" {
            #expect(error.isExplicitlyCancelledError, "\(error)")
        } else {
            #expect(error.urlError?.code == .timedOut, "\(error)")
        }
        #expect(asked.count == 1)
    }

    /// Fails (or, `fails: false`, returns the body's length), the first
    /// time only after the test opens `gate`.
    struct GatedSerializer: ResponseSerializer {
        let entered = Latch()
        let gate = DispatchSemaphore(value: 0)
        let runs = Counter()
        var fails = true

        func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> Int {
            if runs.increment() == 1 {
                entered.arrive()
                gate.wait()
            }
            guard !fails else { throw TestError(7) }
            return data?.count ?? 0
        }
    }

    /// Chains `serializer` onto `request`, cancels the request while the
    /// serializer runs (the request has finished), then lets it end:
    /// returns the request and what its handler received.
    private func cancel(
        _ request: DataRequest, whileRunning serializer: GatedSerializer
    ) async -> (DataRequest, [String]) {
        let outcome = Recorder<String>()
        let done = Latch()
        request.response(queue: handlerQueue, responseSerializer: serializer) { response in
            outcome.append(response.error?.kind ?? "ok")
            done.arrive()
        }
        #expect(await serializer.entered.wait())
        #expect(request.state == .finished)
        request.cancel()
        serializer.gate.signal()
        #expect(await done.wait())
        return (request, outcome.events)
    }

    /// ``Request/cancel()`` while a serializer whose failure the retriers
    /// would judge is still running (the request has finished; Alamofire's
    /// has not, and its cancel stops the retry): no retrier is asked, the
    /// request is not sent again, and the handler receives the cancellation.
    @Test func aCancelWhileARetryableSerializerRunsAsksNoRetrierAndSendsNothingAgain() async throws {
        let asked = Counter()
        // Retries once, so that a missed cancel shows as a second request, not a loop.
        let retrier = Retrier { _, _, _, completion in completion(asked.increment() == 1 ? .retry : .doNotRetry) }
        let hits = Counter()
        let fixture = PolicyFixture { _ in
            hits.increment()
            return .json("[not a number")
        }
        let session = Session(transport: fixture.transport, interceptor: retrier)
        let (request, outcome) = await cancel(session.request(fixture.url("/number")), whileRunning: GatedSerializer())
        #expect(outcome == ["cancelled"])
        #expect(asked.count == 0, "no retrier asked")
        #expect(hits.count == 1, "sent once")
        #expect(request.retryCount == 0)
    }

    /// A ``Request/cancel()`` that ends the wait for the retriers before
    /// the callback queue's turn to ask them: no retrier is asked at all
    /// (one may refresh a token or log; its answer would only be dropped).
    @Test func aCancelBeforeTheRetriersTurnAsksNoRetrier() async throws {
        let asked = Counter()
        let retrier = Retrier { _, _, _, completion in
            asked.increment()
            completion(.retry)
        }
        let hits = Counter()
        let fixture = PolicyFixture { _ in
            hits.increment()
            return .json("[not a number")
        }
        let session = Session(transport: fixture.transport, interceptor: retrier)
        let serializer = GatedSerializer()
        let outcome = Recorder<String>()
        let done = Latch()
        let request = session.request(fixture.url("/number"))
            .response(queue: handlerQueue, responseSerializer: serializer) { response in
                outcome.append(response.error?.kind ?? "ok")
                done.arrive()
            }
        #expect(await serializer.entered.wait())
        // Holds the callback queue, where the retriers are asked.
        let hold = DispatchSemaphore(value: 0)
        session.rootQueue.async { hold.wait() }
        serializer.gate.signal()
        let waits = await eventually(within: 60) {
            request.mutableState.withLock(owner: request) { $0.retryDecisionWait != nil }
        }
        #expect(waits, "the failed serializer's handler waits for the retriers")
        request.cancel()
        #expect(await done.wait())
        hold.signal()
        await drained(session.rootQueue)
        #expect(outcome.events == ["cancelled"])
        #expect(asked.count == 0, "no retrier asked")
        #expect(hits.count == 1, "sent once")
    }

    /// A ``Request/cancel()`` while one retrier decides about a finished
    /// request's serializer failure: the retriers after it are not asked.
    @Test func aCancelWhileARetrierDecidesAsksNoFurtherRetrier() async throws {
        let requests = Mutex<[Request]>([])
        let first = Retrier { request, _, _, completion in
            requests.withLock { $0.append(request) }
            request.cancel()
            completion(.doNotRetry)
        }
        let asked = Counter()
        let second = Retrier { _, _, _, completion in
            asked.increment()
            completion(.retry)
        }
        let fixture = PolicyFixture { _ in .json("[not a number") }
        // The session's retrier, then the request's.
        let session = Session(transport: fixture.transport, interceptor: first)
        let request = session.request(fixture.url("/number"), interceptor: second)
        let result = await response { request.responseDecodable(of: [Int].self, queue: handlerQueue, completionHandler: $0) }
        await drained(session.rootQueue)
        #expect(result?.error?.kind == "cancelled", "\(String(describing: result?.error))")
        #expect(requests.withLock { $0.count } == 1, "the first retrier was asked")
        #expect(asked.count == 0, "the second was not")
    }

    /// The cancel holds for the handlers chained before it, not for one
    /// chained once they all ran: that one's failure is put to the retriers,
    /// as after a cancel of a request whose handlers had all run.
    @Test func aCancelDuringARetryableSerializerDoesNotHoldForAHandlerChainedAfterItRan() async throws {
        let asked = Counter()
        let retrier = Retrier { _, _, _, completion in
            asked.increment()
            completion(.doNotRetry)
        }
        let fixture = PolicyFixture { _ in .json("[not a number") }
        let session = Session(transport: fixture.transport, interceptor: retrier)
        let (request, first) = await cancel(session.request(fixture.url("/number")), whileRunning: GatedSerializer(fails: false))
        #expect(first == ["ok"], "a serializer that succeeds delivers its value")
        let later = await response { request.responseDecodable(of: [Int].self, queue: handlerQueue, completionHandler: $0) }
        #expect(later?.error?.kind == "jsonSyntax" || later?.error?.kind == "decoding", "\(String(describing: later?.error))")
        #expect(asked.count == 1, "the later handler's failure was put to the retriers")
    }

    /// A wait for the retriers that ends clears only itself: the next
    /// handler's wait, begun as the first one's decision let that handler
    /// run, is still the one ``Request/cancel()`` ends.
    @Test func aRetryDecisionThatEndsLeavesTheNextHandlersWaitToCancel() async throws {
        let fixture = PolicyFixture { _ in .json("{}") }
        let request = fixture.makeSession().request(fixture.url("/json"))
        _ = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(request.state == .finished)
        let secondDecisions = Recorder<String>()
        let secondWait = Mutex<CompletionOnce<RetryDecision>?>(nil)
        let firstWait = try #require(request.awaitingRetryDecision { _ in
            let wait = request.awaitingRetryDecision { decision in
                guard case .doNotRetryWithError(let error) = decision else { return secondDecisions.append("other") }
                secondDecisions.append(error.kind)
            }
            secondWait.withLock { $0 = wait }
        })
        firstWait(.doNotRetry)
        #expect(secondWait.withLock { $0 } != nil, "the second wait began")
        request.cancel()
        #expect(secondDecisions.events == ["cancelled"], "the cancel ended the second wait")
    }

    /// A retrier that answers `retry` after ``Request/cancel()`` ended the
    /// wait does not reopen the request: nothing is sent again.
    @Test func aRetryAnsweredAfterTheCancelSendsNothing() async throws {
        let completions = Recorder<@Sendable (RetryResult) -> Void>()
        let late = Retrier { _, _, _, completion in completions.append(completion) }
        let hits = Counter()
        let fixture = PolicyFixture { _ in
            hits.increment()
            return .json("[not json")
        }
        let session = Session(transport: fixture.transport, interceptor: late)
        let done = Latch()
        let outcome = Recorder<String>()
        let request = session.request(fixture.url("/json"))
            .responseDecodable(of: [String].self, queue: handlerQueue) {
                outcome.append($0.error?.kind ?? "ok")
                done.arrive()
            }
        #expect(await eventually { completions.count == 1 })
        request.cancel()
        #expect(await done.wait())
        completions.events.first?(.retry)
        await drained(handlerQueue)
        #expect(outcome.events == ["cancelled"])
        #expect(request.state == .finished)
        #expect(request.retryCount == 0)
        #expect(hits.count == 1)
    }

    /// A finished request does not keep its session; once the session is
    /// gone, nothing retries it (Alamofire's request without a delegate).
    @Test func aFinishedRequestWhoseSessionIsGoneIsNotRetriedByItsSerializer() async throws {
        let (fixture, hits) = Self.fixture(first: .json("[not json"), later: .json(#"{"ok":true}"#))
        let asked = Counter()
        let retrier = Retrier { _, _, _, completion in
            asked.increment()
            completion(.retry)
        }
        let sessions = WeakList<Session>()
        let request: DataRequest = {
            let session = fixture.makeSession()
            sessions.add(session)
            return session.request(fixture.url("/flaky"), interceptor: retrier)
        }()
        let first = await response { request.response(queue: handlerQueue, completionHandler: $0) }
        #expect(first?.data == Data("[not json".utf8))
        #expect(await eventually { sessions.aliveCount == 0 }, "the finished request released its session")
        #expect(request.session == nil)
        let result = await response { request.responseDecodable(of: [String: Bool].self, queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.isResponseSerializationError == true, "the failure is delivered, not retried")
        #expect(hits.count == 1)
        #expect(asked.count == 0, "no session: nobody to ask")
        #expect(request.state == .finished)
    }

    /// Without a retrier or a retry policy nothing waits: the handlers run
    /// straight through, as ordinary handlers.
    @Test func withoutRetriersASerializerFailureIsDeliveredAtOnce() async throws {
        let (fixture, hits) = Self.fixture(first: .json("[not json"), later: .json("{}"))
        let result = await response { fixture.session.request(fixture.url("/flaky")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.isResponseSerializationError == true)
        #expect(hits.count == 1)
    }
}

/// Retries the first `retrying` failures it is asked about, and records each.
private final class RecordingRetrier: RequestInterceptor, Sendable {
    private let retrying: Int
    private let recorded = Recorder<HTTPError>()

    init(retrying: Int) { self.retrying = retrying }

    var errors: [HTTPError] { recorded.events }

    func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        recorded.append(error)
        return recorded.events.count <= retrying ? .retry : .doNotRetry
    }
}
