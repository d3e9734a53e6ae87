import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// The factories under Alamofire's signatures: `parameters:encoding:`,
/// optional `headers:`, `requestModifier:`, `usingThreshold:`; what each
/// sent is MockTransport's record.
@Suite("Request factories: parameters, encodings, request modifiers")
struct RequestFactoryTests {
    static func sent(_ make: (PolicyFixture) -> DataRequest) async -> (URLRequest?, HTTPError?) {
        let fixture = PolicyFixture { _ in .json(#"{"ok":true}"#) }
        let request = make(fixture)
        let error = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }?.error
        return (fixture.requests.first, error)
    }

    @Test func untypedParametersGoInTheQueryOrAsJSON() async throws {
        // Typed as Alamofire's untyped `Parameters`: URLEncoding writes a Bool as 1, and sorts keys.
        let parameters: Parameters = ["q": "swift", "page": 2, "exact": true]
        let (get, _) = await Self.sent { $0.session.request($0.url("/search"), parameters: parameters) }
        #expect(get?.url?.query == "exact=1&page=2&q=swift")
        let (post, _) = await Self.sent {
            $0.session.request($0.url("/items"), method: .post, parameters: ["name": "pen"], encoding: JSONEncoding.default)
        }
        #expect(post?.httpBody.map { String(decoding: $0, as: UTF8.self) } == #"{"name":"pen"}"#)
        #expect(post?.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let (failed, error) = await Self.sent {
            $0.session.request($0.url("/items"), method: .post, parameters: ["when": Date()], encoding: JSONEncoding.default)
        }
        #expect(failed == nil, "nothing sent")
        guard case .parameterEncodingFailed(.jsonEncodingFailed)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func theModifierRunsBeforeTheParametersAndItsErrorFailsTheRequest() async throws {
        let (sent, _) = await Self.sent { fixture in
            fixture.session.request(fixture.url("/items"), parameters: ["a": 1]) { request in
                request.httpMethod = "POST"   // so the parameters go in the body
                request.timeoutInterval = 5
                request.setValue("1", forHTTPHeaderField: "X-Modified")
            }
        }
        #expect(sent?.httpMethod == "POST")
        #expect(sent?.httpBody.map { String(decoding: $0, as: UTF8.self) } == "a=1")
        #expect(sent?.timeoutInterval == 5)
        #expect(sent?.value(forHTTPHeaderField: "X-Modified") == "1")

        struct Refused: Error {}
        let (none, error) = await Self.sent { $0.session.request($0.url("/items"), requestModifier: { _ in throw Refused() }) }
        #expect(none == nil)
        guard case .createURLRequestFailed(let underlying)? = error, underlying is Refused else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func optionalHeadersAndEveryFactoryTakeTheSameLabels() async throws {
        let fixture = PolicyFixture { _ in .json(#"{"ok":true}"#) }
        let headers: HTTPHeaders? = ["X-A": "1"]
        let modifier: Session.RequestModifier = { $0.setValue("m", forHTTPHeaderField: "X-M") }
        let session = fixture.session
        let requests: [Request] = [
            session.request(fixture.url("/r"), headers: headers, requestModifier: modifier),
            session.download(fixture.url("/d"), parameters: ["p": 1] as Parameters, encoding: URLEncoding.default,
                             headers: headers, requestModifier: modifier),
            session.upload(Data("u".utf8), to: fixture.url("/u"), headers: headers, requestModifier: modifier),
            session.streamRequest(fixture.url("/s"), headers: headers, requestModifier: modifier),
            session.streamRequest(fixture.url("/e"), parameters: ["k": "v"], headers: headers, requestModifier: modifier),
            session.download(fixture.url("/t"), parameters: ["k": "v"], encoder: URLEncodedFormParameterEncoder.default,
                             headers: headers, requestModifier: modifier),
        ]
        let done = Latch(count: requests.count)
        for request in requests {
            switch request {
            case let data as DataRequest: data.response(queue: handlerQueue) { _ in done.arrive() }
            case let download as DownloadRequest: download.responseURL(queue: handlerQueue) { _ in done.arrive() }
            case let stream as DataStreamRequest:
                stream.responseStream(on: handlerQueue) { if case .complete = $0.event { done.arrive() } }
            default: Issue.record("unexpected \(request)")
            }
        }
        #expect(await done.wait())
        // The downloads have no destination: their files are ours to remove.
        defer { removeDownloadedFiles(of: requests.compactMap { $0 as? DownloadRequest }) }
        let sent = fixture.requests.sorted { ($0.url?.path ?? "") < ($1.url?.path ?? "") }
        #expect(sent.map { $0.url?.path } == ["/d", "/e", "/r", "/s", "/t", "/u"])
        #expect(sent.allSatisfy { $0.value(forHTTPHeaderField: "X-A") == "1" && $0.value(forHTTPHeaderField: "X-M") == "m" })
        #expect(sent.map { $0.url?.query } == ["p=1", "k=v", nil, nil, "k=v", nil])
    }

    @Test func aFormOverItsThresholdGoesFromATemporaryFile() async throws {
        let fixture = PolicyFixture { _ in .json(#"{"ok":true}"#) }
        let small = fixture.session.upload(multipartFormData: { $0.append(Data("x".utf8), withName: "a") }, to: fixture.url("/m"))
        let large = fixture.session.upload(multipartFormData: { $0.append(Data("x".utf8), withName: "a") }, to: fixture.url("/m"),
                                           usingThreshold: 0)
        _ = await response { small.responseData(queue: handlerQueue, completionHandler: $0) }
        _ = await response { large.responseData(queue: handlerQueue, completionHandler: $0) }
        let attempts = fixture.transport.attempts
        #expect(attempts.count == 2)
        #expect(attempts.filter { $0.bodyFile != nil }.count == 1, "only the form over its threshold was written to a file")
        #expect(attempts.filter { $0.request.httpBody != nil }.count == 1)
    }
}

/// `startRequestsImmediately` and `shouldAutomaticallyResume`: a request that
/// waits for `resume()`; what was sent is MockTransport's record.
@Suite("Requests that wait for resume()")
struct ManualResumeTests {
    @Test func aSessionThatDoesNotStartRequestsImmediatelyWaitsForResume() async throws {
        let fixture = PolicyFixture { _ in .json(#"{"ok":true}"#) }
        let session = Session(transport: fixture.transport, startRequestsImmediately: false)
        #expect(!session.startRequestsImmediately)
        let request = session.request(fixture.url("/manual"))
        let done = Latch()
        request.responseData(queue: handlerQueue) { _ in done.arrive() }
        // Given time to start, it does not: the handler waits with it.
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(request.state == .initialized)
        #expect(fixture.requests.isEmpty)
        request.resume()
        #expect(await done.wait())
        #expect(fixture.requests.count == 1)
    }

    @Test func eachFactoryCanDecideForItsRequest() async throws {
        let fixture = PolicyFixture { _ in .json(#"{"ok":true}"#) }
        let waiting = fixture.session.download(fixture.url("/wait"), shouldAutomaticallyResume: false)
        defer { removeDownloadedFiles(of: waiting) }
        let downloaded = Latch()
        waiting.responseURL(queue: handlerQueue) { _ in downloaded.arrive() }
        let eager = Session(transport: fixture.transport, startRequestsImmediately: false)
            .request(fixture.url("/eager"), shouldAutomaticallyResume: true)
        let answered = Latch()
        eager.responseData(queue: handlerQueue) { _ in answered.arrive() }
        #expect(await answered.wait())
        #expect(waiting.state == .initialized)
        #expect(fixture.requests.map { $0.url?.path } == ["/eager"])
        waiting.resume()
        #expect(await downloaded.wait())
    }

    @Test func aWaitingRequestReleasedUnresumedIsNeverSent() async throws {
        let fixture = PolicyFixture { _ in .json(#"{"ok":true}"#) }
        // Released at once, without a handler: a request that starts itself would go out (fire and forget).
        _ = fixture.session.request(fixture.url("/forgotten"), shouldAutomaticallyResume: false)
        _ = fixture.session.request(fixture.url("/fired"))
        #expect(await eventually { fixture.requests.count == 1 })
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(fixture.requests.map { $0.url?.path } == ["/fired"])
    }
}

extension ManualResumeTests {
    @Test func progressHandlersDoNotStartARequestThatWaits() async throws {
        let fixture = PolicyFixture { _ in .json(#"{"ok":true}"#) }
        let session = Session(transport: fixture.transport, startRequestsImmediately: false)
        let download = session.download(fixture.url("/d")).downloadProgress(queue: handlerQueue) { _ in }
        defer { removeDownloadedFiles(of: download) }
        let upload = session.upload(Data("u".utf8), to: fixture.url("/u")).uploadProgress(queue: handlerQueue) { _ in }
        #expect(download.state == .initialized)
        #expect(upload.state == .initialized)
        #expect(fixture.requests.isEmpty)
        let done = Latch(count: 2)
        download.resume().responseURL(queue: handlerQueue) { _ in done.arrive() }
        upload.resume().responseData(queue: handlerQueue) { _ in done.arrive() }
        #expect(await done.wait())
        #expect(fixture.requests.count == 2)
    }
}

extension ManualResumeTests {
    @Test func aWaitingRequestReleasedWithAHandlerTellsItsHandlerAndSendsNothing() async throws {
        let fixture = PolicyFixture { _ in .json(#"{"ok":true}"#) }
        let errors = Recorder<String>()
        let done = Latch()
        do {
            fixture.session.request(fixture.url("/dropped"), shouldAutomaticallyResume: false)
                .responseData(queue: handlerQueue) { response in
                    errors.append(response.error.map { "\($0)" } ?? "no error")
                    done.arrive()
                }
        }
        #expect(await done.wait())
        #expect(errors.count == 1)
        #expect(errors.events.first != "no error", "\(errors.events)")
        #expect(fixture.requests.isEmpty)
    }
}
