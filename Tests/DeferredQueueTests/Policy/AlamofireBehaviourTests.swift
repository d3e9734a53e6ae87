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
    }
}
