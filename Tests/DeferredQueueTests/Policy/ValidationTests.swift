import DeferredQueueTesting
import Foundation
import TestSupport
import Testing
@testable import DeferredQueue

/// Validation is the session's: judged once, on MockTransport (no socket).
@Suite("DataRequest: validation")
struct ValidationTests {
    /// A new fixture per test: scripted replies, and a session on them.
    let fixture = PolicyFixture()
    var session: Session { fixture.session }

    @Test func validateAffectsOnlyTheHandlersChainedAfterIt() async throws {
        let before = Recorder<String>()
        let after = Recorder<String>()
        let done = Latch(count: 2)
        session.request(fixture.url("/status/404"))
            .responseString(queue: handlerQueue) { before.append($0.error?.kind ?? $0.value ?? ""); done.arrive() }
            .validate()
            .responseString(queue: handlerQueue) { after.append($0.error?.kind ?? "ok"); done.arrive() }
        #expect(await done.wait())
        #expect(before.events == ["status 404"], "a 404 without validation is a response like any other")
        #expect(after.events == ["status(404)"])
    }

    /// A failed verdict is the request's `error` once the request finished,
    /// before any handler runs — also one chained before the validator,
    /// whose response stays unvalidated (as in Alamofire, whose validators
    /// run when the task completes).
    @Test func aFailedVerdictIsTheRequestsErrorBeforeAnyHandlerRuns() async throws {
        let seen = Recorder<String>()
        let done = Latch()
        let request = session.request(fixture.url("/status/404"), shouldAutomaticallyResume: false)
        request.responseString(queue: handlerQueue) { response in
            seen.append(response.error?.kind ?? "ok")
            seen.append(request.error?.kind ?? "no error")
            done.arrive()
        }
        request.validate().resume()
        #expect(await done.wait())
        #expect(seen.events == ["ok", "status(404)"])
    }

    /// A validator chained after the request finished judges only what the
    /// validators before it passed: a failure of theirs stands, and it is
    /// not asked.
    @Test func aValidatorChainedAfterTheRequestFinishedJudgesOnlyWhatTheEarlierOnesPassed() async throws {
        let request = session.request(fixture.url("/status/404")).validate(statusCode: [200])
        _ = await request.serializingData().result
        let asked = Counter()
        let late = await response { handler in
            request.validate { _, _, _ in asked.increment(); return .failure(Rejected()) }
                .responseData(queue: handlerQueue, completionHandler: handler)
        }
        #expect(late?.error?.kind == "status(404)")
        #expect(asked.count == 0)
    }

    @Test func statusCodeValidation() async throws {
        let accepted = await response { session.request(fixture.url("/status/201")).validate(statusCode: [201]).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(accepted?.value == "status 201")
        let rejected = await response { session.request(fixture.url("/status/200")).validate(statusCode: 300..<400).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(rejected?.error?.kind == "status(200)")
        #expect(rejected?.error?.responseCode == 200)
    }

    @Test func contentTypeValidationWithWildcards() async throws {
        let json = await response { session.request(fixture.url("/json")).validate(contentType: ["application/*"]).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(json?.error == nil)
        let html = await response { session.request(fixture.url("/html")).validate(contentType: ["application/json"]).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(html?.error?.kind == "contentType")
        let any = await response { session.request(fixture.url("/html")).validate(contentType: ["*/*"]).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(any?.error == nil)
    }

    /// A body without a `Content-Type` (or with one that is not `type/subtype`)
    /// passes `*/*` alone, as in Alamofire; `text/*` or `*/json` still fail it.
    @Test func aResponseWithoutAContentTypePassesOnlyTheFullWildcard() async throws {
        let fixture = PolicyFixture { request in
            switch request.url?.path {
            case "/untyped": .status(200, body: Data("x".utf8))
            case "/garbled": .status(200, headers: ["Content-Type": "nonsense"], body: Data("x".utf8))
            default: nil
            }
        }
        for path in ["/untyped", "/garbled"] {
            for (acceptable, passes) in [(["*/*"], true), (["text/plain", "*/*"], true), (["text/*"], false), (["*/json"], false)] {
                let result = await response {
                    fixture.session.request(fixture.url(path)).validate(contentType: acceptable).responseData(queue: handlerQueue, completionHandler: $0)
                }
                #expect((result?.error == nil) == passes, "\(path) \(acceptable): \(String(describing: result?.error))")
                if !passes { #expect(result?.error?.kind == "missingContentType") }
            }
        }
        #expect(MIMEType("*/*")?.isWildcard == true)
        #expect(MIMEType("text/*")?.isWildcard == false)
        #expect(MIMEType("*/json")?.isWildcard == false)
    }

    /// As Alamofire takes them: any sequence. Read once, when the validator
    /// is added, so that judging a response runs no caller code.
    @Test func contentTypesMayBeAnySequenceReadOnceWhenAdded() async throws {
        let accepted: Set<String> = ["text/plain", "application/json"]
        let json = await response { session.request(fixture.url("/json")).validate(contentType: accepted).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(json?.error == nil)
        let reads = Counter()
        let request = session.request(fixture.url("/html")).validate(contentType: { reads.increment(); return accepted.sorted().lazy }())
        #expect(reads.count == 1, "read when added, before the request starts")
        let html = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(html?.error?.kind == "contentType")
        #expect(reads.count == 1, "not read again when the response is checked")
    }

    @Test func plainValidateChecksTheAcceptHeader() async throws {
        let mismatch = await response { handler in
            session.request(fixture.url("/html"), headers: ["Accept": "application/json, text/plain;q=0.5"])
                .validate().responseData(queue: handlerQueue, completionHandler: handler)
        }
        #expect(mismatch?.error?.kind == "contentType")
        let match = await response { handler in
            session.request(fixture.url("/json"), headers: ["Accept": "application/json"])
                .validate().responseData(queue: handlerQueue, completionHandler: handler)
        }
        #expect(match?.error == nil)
    }

    struct Rejected: Error {}

    @Test func customValidatorsAndTheFirstFailureWins() async throws {
        let custom = await response { handler in
            session.request(fixture.url("/json"))
                .validate { _, _, data in data?.count == 3 ? .success(()) : .failure(Rejected()) }
                .validate(statusCode: [500])
                .responseData(queue: handlerQueue, completionHandler: handler)
        }
        #expect(custom?.error?.kind == "customValidation")
        let passes = await response { handler in
            session.request(fixture.url("/json"))
                .validate { _, response, _ in response.statusCode == 200 ? .success(()) : .failure(Rejected()) }
                .responseData(queue: handlerQueue, completionHandler: handler)
        }
        #expect(passes?.error == nil)
    }

    @Test func validationFailuresDescribeThemselves() async throws {
        let failed = await response { session.request(fixture.url("/status/404")).validate().responseData(queue: handlerQueue, completionHandler: $0) }
        let description = try #require(failed?.error).description
        #expect(description.contains("404"))
    }

    /// Alamofire's shapes: a download's validator reads its file, a
    /// stream's judges the head alone.
    @Test func aDownloadsValidatorReadsTheFileAndAStreamsJudgesTheHead() async throws {
        let seen = Recorder<String>()
        let downloaded = Recorder<DownloadResponse<URL, HTTPError>>()
        let finished = Latch()
        session.download(fixture.url("/json"))
                .validate { _, response, fileURL in
                    let text = fileURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
                    seen.append(text)
                    return text.contains("hello") ? .success(()) : .failure(Rejected())
                }
                .validate { _, _, fileURL in fileURL == nil ? .success(()) : .failure(Rejected()) }
                .responseURL(queue: handlerQueue) { downloaded.append($0); finished.arrive() }
        #expect(await finished.wait())
        let download = downloaded.events.first
        #expect(seen.events.first?.contains("\"title\":\"hello\"") == true)
        #expect(download?.error?.kind == "customValidation")
        if let file = download?.fileURL { try? FileManager.default.removeItem(at: file) }

        let completion = Recorder<DataStreamRequest.Completion>()
        let done = Latch()
        session.streamRequest(fixture.url("/json"))
            .validate { request, response in
                request?.url?.path == "/json" && response.statusCode == 200 ? .failure(Rejected()) : .success(())
            }
            .responseStream(on: handlerQueue) { stream in
                if case .complete(let end) = stream.event {
                    completion.append(end)
                    done.arrive()
                }
            }
        #expect(await done.wait())
        #expect(completion.events.first?.error?.kind == "customValidation")
    }

    /// A validator lets go of a request that was never started: released
    /// (or cancelled, then released), the request is freed, never sent, and
    /// its handler hears why (a step holding it strongly would keep it
    /// forever; one that judged the failed outcome would touch a freed request).
    @Test(arguments: [false, true])
    func aValidatedRequestNeverStartedCanBeFreed(cancelledFirst: Bool) async throws {
        let released = WeakList<DataRequest>()
        let heard = Recorder<String>()
        let done = Latch()
        do {
            let request = session.request(fixture.url("/status/404"), shouldAutomaticallyResume: false).validate()
            released.add(request)
            request.response(queue: handlerQueue) { heard.append($0.error?.kind ?? "ok"); done.arrive() }
            if cancelledFirst { request.cancel() }
        }
        #expect(await eventually { released.aliveCount == 0 }, "the request was freed")
        #expect(await done.wait())
        #expect(heard.events == [cancelledFirst ? "cancelled" : "abandoned"])
        #expect(fixture.transport.requests.isEmpty)
    }

    /// A validator judges with its request at hand (the monitors hear each
    /// verdict, which names the request) even when its caller let go of the
    /// request: added before the request started, or after it finished,
    /// when the handler queue is already running.
    @Test(arguments: [false, true])
    func aValidatorJudgesARequestItsCallerReleased(afterFinishing: Bool) async throws {
        let verdicts = Recorder<String>()
        let monitor = ClosureEventMonitor(queue: handlerQueue)
        monitor.requestDidValidateRequestResponseDataWithResult = { _, _, _, _, result in
            verdicts.append((try? result.get()) == nil ? "failed" : "ok")
        }
        let session = fixture.makeSession(eventMonitors: [monitor])
        let released = WeakList<DataRequest>()
        let gate = DispatchSemaphore(value: 0)
        do {
            let request = session.request(fixture.url("/status/404"))
            released.add(request)
            if afterFinishing {
                _ = await request.serializingData().result
                // Holds the handler queue, so the second validator runs once the caller let go.
                request.validate { _, _, _ in gate.wait(); return .success(()) }.validate()
            } else {
                request.validate().resume()
            }
        }
        gate.signal()
        let expected = afterFinishing ? ["ok", "failed"] : ["failed"]
        #expect(await eventually { verdicts.events == expected }, "\(verdicts.events)")
        #expect(await eventually { released.aliveCount == 0 }, "the request was freed once judged")
    }
}
