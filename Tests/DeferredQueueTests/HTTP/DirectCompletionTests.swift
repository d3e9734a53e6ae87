import DeferredQueueTesting
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
@testable import DeferredQueue

/// `HTTPTransportEvents.didCompleteDirectly`: the session finishes a
/// collected response off the callback queue only when that runs none of
/// the caller's code, and otherwise leaves it to the callback queue; either
/// way the request ends the same.
@Suite("Direct completion: finishing off the callback queue only when nothing of the caller's runs")
struct DirectCompletionTests {
    /// Answers every attempt from a queue of its own (standing for an event
    /// loop): offers the completion there, and when refused reports the head
    /// and the completion on the callback queue, as a transport must.
    final class DirectTransport: HTTPTransport {
        let callbackQueue = DispatchQueue(label: "DirectCompletionTests.callback")
        let acceptEncoding: String? = nil
        private let loop = DispatchQueue(label: "DirectCompletionTests.loop")
        private let status: Int
        private let headers: HTTPHeaders
        /// For each attempt, whether the session took its completion directly.
        let taken = Mutex<[Bool]>([])
        /// Attempts started.
        let started = Atomic(0)
        /// When set, each attempt waits for it before it answers.
        let gate: DispatchSemaphore?

        init(status: Int = 200, headers: HTTPHeaders = ["Content-Type": "application/json"], gate: DispatchSemaphore? = nil) {
            self.status = status
            self.headers = headers
            self.gate = gate
        }

        struct Task: HTTPTransportTask {
            func cancel() {}
        }

        func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask {
            let url = attempt.request.url!
            let (status, headers) = (self.status, self.headers)
            let callbackQueue = self.callbackQueue
            started.add(1, ordering: .relaxed)
            loop.async {
                self.gate?.wait()
                let head = ResponseHead(url: url, statusCode: status, httpVersion: "HTTP/1.1", headers: headers)
                let body = Data(#"{"ok":true}"#.utf8)
                let took = events.didCompleteDirectly(head: head, body: body)
                self.taken.withLock { $0.append(took) }
                if !took {
                    callbackQueue.async {
                        events.didReceive(head: head)
                        events.didComplete(body: body, error: nil)
                    }
                }
            }
            return Task()
        }

        func shutdown() {}
    }

    struct NeverRetrier: RequestRetrier {
        func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
            completion(.doNotRetry)
        }
    }

    private let url = URL(string: "http://direct.test/entry")!

    /// Runs `request` and returns its response, with what the transport saw.
    private func run(
        _ transport: DirectTransport, session: Session? = nil, _ make: (Session) -> DataRequest = { $0.request(URL(string: "http://direct.test/entry")!) }
    ) async -> (response: DataResponse<Data, HTTPError>, taken: [Bool]) {
        let session = session ?? Session(transport: transport)
        let request = make(session)
        let response = await withCheckedContinuation { continuation in
            request.responseData(queue: .global()) { continuation.resume(returning: $0) }
        }
        // A completion taken directly can run the handler before the
        // transport, still in `didCompleteDirectly`'s caller, records that it was.
        let recorded = await eventually { transport.taken.withLock { $0.count } >= transport.started.load(ordering: .relaxed) }
        #expect(recorded, "the transport never recorded its answers")
        return (response, transport.taken.withLock { $0 })
    }

    @Test func aPlainSuccessIsFinishedDirectly() async throws {
        let transport = DirectTransport()
        let (response, taken) = await run(transport)
        #expect(taken == [true])
        #expect(response.value == Data(#"{"ok":true}"#.utf8))
        #expect(response.response?.statusCode == 200)
        #expect(response.response?.value(forHTTPHeaderField: "content-type") == "application/json")
    }

    @Test func theLibrarysHeadChecksRunDirectlyWhenNoRetrierWaitsForTheirVerdict() async throws {
        let transport = DirectTransport()
        let (response, taken) = await run(transport) { $0.request(self.url).validate().validate(contentType: ["application/json"]) }
        #expect(taken == [true])
        #expect(response.error == nil)

        let failing = DirectTransport()
        let (refused, tookRefused) = await run(failing) { $0.request(self.url).validate(contentType: ["text/html"]) }
        #expect(tookRefused == [true])
        guard case .responseValidationFailed(.unacceptableContentType)? = refused.error else {
            Issue.record("a failed head check fails the request directly too: \(String(describing: refused.error))")
            return
        }
    }

    @Test(arguments: [301, 401, 404, 500])
    func aStatusThatMayNeedTheCallersCodeGoesToTheCallbackQueue(status: Int) async throws {
        let transport = DirectTransport(status: status, headers: ["Location": "http://direct.test/elsewhere"])
        let session = Session(transport: transport, redirectHandler: .doNotFollow)
        let (response, taken) = await run(transport, session: session)
        #expect(taken == [false])
        #expect(response.response?.statusCode == status)
    }

    @Test func aCookieForTheSessionsOwnStoreIsStoredDirectly() async throws {
        let transport = DirectTransport(headers: ["Set-Cookie": "id=1; Path=/"])
        let session = Session(transport: transport)
        let (_, taken) = await run(transport, session: session)
        #expect(taken == [true])
        #expect(session.cookieStore?.cookieHeader(for: url) == "id=1")
    }

    /// A session on `transport` that keeps cookies in the caller's `storage`.
    private func session(_ transport: DirectTransport, storing storage: HTTPCookieStorage) -> Session {
        Session(
            transport: transport, startRequestsImmediately: true, requestSetup: .lazy, requestQueue: nil, serializationQueue: nil,
            interceptor: nil, serverTrustManager: nil, redirectHandler: .follow, eventMonitors: [], retryPolicy: nil,
            maximumResponseBodySize: 1 << 20, maximumStreamedBodySize: 1 << 20, resourceTimeout: nil,
            cookieStore: SystemCookieStore(storage: storage), configuredHeaders: []
        )
    }

    /// Storing in a caller's `HTTPCookieStorage` runs the caller's code.
    @Test func aCookieForTheCallersStorageGoesToTheCallbackQueue() async throws {
        let storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
        let transport = DirectTransport(headers: ["Set-Cookie": "id=1; Path=/"])
        let (_, taken) = await run(transport, session: session(transport, storing: storage))
        #expect(taken == [false])
        #expect(storage.cookies?.map(\.name) == ["id"])

        // Without a cookie to store, the caller's storage is no reason to leave the transport's thread.
        let plain = DirectTransport()
        let (_, tookPlain) = await run(plain, session: session(plain, storing: storage))
        #expect(tookPlain == [true])
    }

    @Test func aMonitoredSessionGoesToTheCallbackQueue() async throws {
        let transport = DirectTransport()
        let finished = Mutex(0)
        let monitor = ClosureEventMonitor()
        monitor.requestDidFinish = { _ in finished.withLock { $0 += 1 } }
        let session = Session(transport: transport, eventMonitors: [monitor])
        let (response, taken) = await run(transport, session: session)
        #expect(taken == [false])
        #expect(response.value != nil)
        #expect(finished.withLock { $0 } == 1)
    }

    @Test func aValidatorClosureGoesToTheCallbackQueue() async throws {
        let transport = DirectTransport()
        let ran = Mutex(0)
        let (response, taken) = await run(transport) { session in
            session.request(self.url).validate { _, _, _ in
                ran.withLock { $0 += 1 }
                return .success(())
            }
        }
        #expect(taken == [false])
        #expect(response.error == nil && ran.withLock { $0 } == 1)
    }

    @Test func aHeadCheckARetrierMayBeAskedAboutGoesToTheCallbackQueue() async throws {
        let transport = DirectTransport()
        let session = Session(transport: transport, interceptor: Interceptor(retriers: [NeverRetrier()]))
        let (checked, takenChecked) = await run(transport, session: session) { $0.request(self.url).validate() }
        #expect(takenChecked == [false] && checked.error == nil)

        let plain = DirectTransport()
        let plainSession = Session(transport: plain, interceptor: Interceptor(retriers: [NeverRetrier()]))
        let (_, takenPlain) = await run(plain, session: plainSession)
        #expect(takenPlain == [true], "without validators a 2xx asks no retrier: direct")
    }

    @Test func anOnHTTPResponseHandlerGoesToTheCallbackQueue() async throws {
        let transport = DirectTransport()
        let heard = Mutex(0)
        let (response, taken) = await run(transport) { session in
            session.request(self.url).onHTTPResponse(on: .global()) { _ in heard.withLock { $0 += 1 } }
        }
        #expect(taken == [false])
        #expect(response.value != nil && heard.withLock { $0 } == 1)
    }

    @Test func aRequestSuspendedWhenItsResponseEndsGoesToTheCallbackQueueAndEndsOnResume() async throws {
        let gate = DispatchSemaphore(value: 0)
        let transport = DirectTransport(gate: gate)
        let session = Session(transport: transport)
        let request = session.request(url)
        let ended = Mutex<DataResponse<Data, HTTPError>?>(nil)
        request.responseData(queue: .global()) { response in ended.withLock { $0 = response } }
        #expect(await eventually { transport.started.load(ordering: .relaxed) == 1 })
        request.suspend()
        gate.signal()
        #expect(await eventually { transport.taken.withLock { $0 } == [false] })
        #expect(ended.withLock { $0 } == nil, "a suspended request does not finish")
        request.resume()
        #expect(await eventually { ended.withLock { $0 } != nil })
        #expect(ended.withLock { $0?.value } == Data(#"{"ok":true}"#.utf8))
    }
}
