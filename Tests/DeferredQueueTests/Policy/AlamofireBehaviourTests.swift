import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Smaller points of Alamofire's behaviour that its tests check; on MockTransport.
@Suite("Alamofire behaviour: request built on adapter failure, upload bodies on retry, conveniences")
struct AlamofireBehaviourTests {
    struct Refused: Error {}

    @Test func aResponseNamesTheRequestAnAdapterFailedOn() async throws {
        let fixture = PolicyFixture()
        let failing = Adapter { _, _, completion in completion(.failure(Refused())) }
        let request = fixture.makeSession(interceptor: failing)
            .request(fixture.url("/json"), headers: [.accept("application/json")])
        let response = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(response?.request?.url == fixture.url("/json"), "as built, though never sent")
        #expect(response?.request?.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(response?.error?.underlyingError is Refused)
        #expect(fixture.requests.isEmpty)
    }

    /// Rebuilds every request from its URL alone, as some adapters do.
    struct Rebuilding: RequestInterceptor {
        func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            var rebuilt = URLRequest(url: urlRequest.url!)
            rebuilt.method = urlRequest.method
            completion(.success(rebuilt))
        }

        func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
            completion(request.retryCount == 0 ? .retry : .doNotRetry)
        }
    }

    @Test func anUploadKeepsItsBodyOnRetryWhenAnAdapterRebuildsTheRequest() async throws {
        let attempts = Counter()
        let fixture = PolicyFixture { _ in attempts.increment() == 1 ? .status(503) : .json(#"{"ok":true}"#) }
        let body = Data("the upload".utf8)
        let upload = fixture.makeSession(interceptor: Rebuilding()).upload(body, to: fixture.url("/up"))
        let response = await response { upload.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(response?.response?.statusCode == 200)
        #expect(fixture.requests.count == 2)
        #expect(fixture.requests.map(\.httpBody) == [body, body], "each attempt sent the body")
        #expect(fixture.requests.map(\.httpMethod) == ["POST", "POST"])
    }

    @Test func cancelChainsAndStateHasAlamofiresName() async throws {
        let fixture = PolicyFixture { _ in .silence }
        let request = fixture.session.request(fixture.url("/never")).resume().cancel()
        let state: Request.State = request.state
        #expect(state == .cancelled)
    }

    @Test func urlRequestsAndProgressReadAsInAlamofire() throws {
        var request = try URLRequest(url: "https://example.com/a", method: .patch, headers: [.accept("text/plain")])
        #expect(request.method == .patch)
        #expect(request.httpMethod == "PATCH")
        #expect(request.headers["Accept"] == "text/plain")
        request.method = .delete
        #expect(request.httpMethod == "DELETE")
        #expect(throws: HTTPError.self) { try URLRequest(url: "not a url", method: .get) }

        let known = TransferProgress(completed: 25, expected: 100)
        #expect(known.fractionCompleted == 0.25)
        #expect(known.completedUnitCount == 25)
        #expect(known.totalUnitCount == 100)
        let unknown = TransferProgress(completed: 7, expected: nil)
        #expect(unknown.fractionCompleted == 0)
        #expect(unknown.totalUnitCount == -1)
        #expect(!known.isFinished && !unknown.isFinished)
        #expect(TransferProgress(completed: 100, expected: 100).isFinished)
        #expect(!TransferProgress(completed: 0, expected: 0).isFinished, "Foundation's: a zero total is not finished")
    }
}

extension AlamofireBehaviourTests {
    @Test(arguments: ["data", "file", "form"])
    func anUploadRedirectedToAGETLeavesItsBodyBehind(_ body: String) async throws {
        let fixture = PolicyFixture { request in
            request.url?.path == "/up" ? .redirect(to: "https://other.invalid/landing", status: 303) : .json(#"{"ok":true}"#)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("redirected-upload-\(UUID().uuidString)")
        try Data("file body".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let upload: UploadRequest = switch body {
        case "data": fixture.session.upload(Data("secret".utf8), to: fixture.url("/up"))
        case "file": fixture.session.upload(file, to: fixture.url("/up"))
        default:
            fixture.session.upload(multipartFormData: { $0.append(Data("secret".utf8), withName: "a") }, to: fixture.url("/up"),
                                   usingThreshold: 0)
        }
        let response = await response { upload.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(response?.response?.statusCode == 200)
        let attempts = fixture.transport.attempts
        #expect(attempts.count == 2)
        #expect(attempts.first?.request.httpBody != nil || attempts.first?.bodyFile != nil, "the POST sent its body")
        #expect(attempts.last?.request.httpMethod == "GET")
        #expect(attempts.last?.request.httpBody == nil, "the GET to another origin carries no body")
        #expect(attempts.last?.bodyFile == nil)
    }

    struct Neither: RequestInterceptor, Authenticator {
        typealias Credential = Token
        // No adapt, no retry: the interceptor defaults pass through. As a plain adapter, below, it implements neither.
        func apply(_ credential: Token, to urlRequest: inout URLRequest) {}
        func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: Token) -> Bool { true }
    }

    struct NeitherAdapter: RequestAdapter {}
    struct NeitherRetrier: RequestRetrier {}

    @Test func aTypeImplementingNeitherShapeFailsClearlyInsteadOfLooping() async throws {
        let fixture = PolicyFixture { _ in .status(503) }
        let adapted = fixture.session.request(fixture.url("/a"), interceptor: Interceptor(adapters: [NeitherAdapter()]))
        let adaptError = await response { adapted.responseData(queue: handlerQueue, completionHandler: $0) }?.error
        let adaptMessage = "\(String(describing: adaptError?.underlyingError))"
        #expect(adaptMessage.contains("NeitherAdapter implements neither"), "\(adaptMessage)")

        let retried = fixture.session.request(fixture.url("/r"), interceptor: Interceptor(retriers: [NeitherRetrier()]))
        let retryError = await response { retried.validate().responseData(queue: handlerQueue, completionHandler: $0) }?.error
        guard case .requestRetryFailed(let reason, _)? = retryError else {
            Issue.record("\(String(describing: retryError))")
            return
        }
        #expect("\(reason)".contains("NeitherRetrier implements neither"))

        // Synchronous cross-defaults end too: no stack overflow.
        let response = HTTPURLResponse(url: fixture.url("/x"), statusCode: 401, httpVersion: nil, headerFields: nil)!
        #expect(!Neither().didRequest(URLRequest(url: fixture.url("/x")), with: response, failDueToAuthenticationError: HTTPError.cancelled))
        await #expect(throws: (any Error).self) { try await Neither().refresh(Token("t"), for: fixture.session) }
    }

    @Test func theBuiltInPoliciesDecideAtOnceWithoutATask() async throws {
        let fixture = PolicyFixture { _ in .status(503) }
        let request = fixture.session.request(fixture.url("/p"))
        _ = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        // Called from a queue, outside any task: each completes before returning.
        let decided = Recorder<String>()
        let done = Latch()
        DispatchQueue(label: "caller").async {
            let policies: [any RequestInterceptor] = [RetryPolicy(), ConnectionLostRetryPolicy(), DeflateRequestCompressor(), Retrier { _, _, _, c in c(.doNotRetry) }]
            for policy in policies {
                let adaptedNow = Counter(), retriedNow = Counter()
                policy.adapt(URLRequest(url: fixture.url("/p")), for: fixture.session) { _ in adaptedNow.increment() }
                policy.retry(request, for: fixture.session, dueTo: HTTPError.cancelled) { _ in retriedNow.increment() }
                decided.append("\(type(of: policy)) \(adaptedNow.count == 1) \(retriedNow.count == 1)")
            }
            done.arrive()
        }
        #expect(await done.wait())
        #expect(decided.events == [
            "RetryPolicy true true", "ConnectionLostRetryPolicy true true", "DeflateRequestCompressor true true", "Retrier true true",
        ])
    }
}
