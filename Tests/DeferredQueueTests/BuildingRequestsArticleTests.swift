import DeferredQueueBehaviourSuites
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// The examples of the DocC article BuildingRequests.md, run against a
/// loopback server so the article cannot drift from the API.
/// Each test is one example as written there, with the server's URLs,
/// `TestTransport.makeSession(…)` for `Session(…)` (except where the example
/// is about a URLSession configuration), and `queue: handlerQueue` for handlers.
@Suite("BuildingRequests article examples compile and behave as documented")
struct BuildingRequestsArticleTests {
    struct Search: Encodable, Sendable {
        let q: String
        let page: Int
    }

    struct NewItem: Encodable, Sendable {
        let title: String
        let tags: [String]
    }

    struct Filter: Encodable, Sendable {
        let tags: [String]
        let archived: Bool
    }

    @Test func theQueryParametersExample() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let results = try await session.request(server.url("/search"),
                                                parameters: Search(q: "swift concurrency", page: 2))
            .validate()
            .serializingJSON()
            .value
        #expect(results["target"] == "/search?page=2&q=swift%20concurrency")
        #expect(results["method"] == "GET")
    }

    @Test func theJSONBodyExample() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let created = try await session.request(server.url("/items"), method: .post,
                                                parameters: NewItem(title: "Milk", tags: ["groceries"]),
                                                encoder: JSONParameterEncoder.sortedKeys)
            .validate()
            .serializingJSON()
            .value
        #expect(created["body"] == #"{"tags":["groceries"],"title":"Milk"}"#)
        #expect(created["headers"]["Content-Type"].string?.hasPrefix("application/json") == true)
    }

    @Test func theFormExample() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let form = URLEncodedFormParameterEncoder(
            encoder: URLEncodedFormEncoder(arrayEncoding: .noBrackets, boolEncoding: .literal),
            destination: .httpBody
        )
        let request = session.request(server.url("/filters"), method: .put,
                                      parameters: Filter(tags: ["a", "b"], archived: false), encoder: form)
        let echoed = try await request.serializingJSON().value
        #expect(echoed["method"] == "PUT")
        #expect(echoed["body"] == "archived=false&tags=a&tags=b")
    }

    @Test func theHeadersExample() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let token = "t0k3n"
        let headers: HTTPHeaders = [.accept("application/json"), .authorization(bearerToken: token)]
        let profile = session.request(server.url("/me"), headers: headers)
        let echoed = try await profile.serializingJSON().value
        #expect(echoed["headers"]["Accept"] == "application/json")
        #expect(echoed["headers"]["Authorization"] == "Bearer t0k3n")
    }

    @Test func theDefaultHeadersExample() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let plain = try await session.request(server.url("/status")).serializingJSON().value
        #expect(plain["headers"]["User-Agent"].string?.contains(" DeferredQueue/") == true)
        #expect(plain["headers"]["Accept-Language"].string?.isEmpty == false)

        let request = session.request(server.url("/status"), headers: [.userAgent("MyApp/2.1 (build 7)")])
        #expect(try await request.serializingJSON().value["headers"]["User-Agent"] == "MyApp/2.1 (build 7)")

        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["User-Agent": "MyApp/2.1 (build 7)"]
        let branded = Session(configuration: configuration)
        let viaConfiguration = try await branded.request(server.url("/status")).serializingJSON().value
        #expect(viaConfiguration["headers"]["User-Agent"] == "MyApp/2.1 (build 7)")
    }

    struct APIKeyAdapter: RequestInterceptor {
        let key: String

        func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
            var request = urlRequest
            request.setValue(key, forHTTPHeaderField: "X-API-Key")
            return request
        }
    }

    struct RetryOnConflict: RequestInterceptor {
        func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
            error.responseCode == 409 && request.retryCount == 0 ? .retryWithDelay(0.1) : .doNotRetry
        }
    }

    @Test func theInterceptorsExample() async throws {
        let hits = Counter()
        let keys = Recorder<String>()
        let server = try LoopbackServer { request in
            keys.append(request.header("X-API-Key") ?? "none")
            return hits.increment() == 1 ? .text("edited meanwhile", status: 409) : .echo(request)
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession(interceptor: APIKeyAdapter(key: "secret"))
        let saved = session.request(server.url("/documents/7"), method: .put,
                                    interceptor: Interceptor(retriers: [RetryOnConflict()]))
        let echoed = try await saved.validate().serializingJSON().value
        #expect(echoed["method"] == "PUT")
        #expect(keys.events == ["secret", "secret"], "the adapter ran for the retry too")
    }

    @Test func theRetryPolicyExample() async throws {
        let hits = Counter()
        let server = try LoopbackServer { request in
            hits.increment() == 1 ? .text("unavailable", status: 503) : .echo(request)
        }
        defer { server.shutdown() }
        let resilient = TestTransport.makeSession(retryPolicy: RetryPolicy(retryLimit: 3))

        // This POST is safe to repeat: the server deduplicates by the idempotency key.
        let payment = resilient.request(server.url("/payments"), method: .post,
                                        headers: ["Idempotency-Key": "8e0f…"],
                                        interceptor: RetryPolicy(retryableHTTPMethods: [.post]))
        let echoed = try await payment.validate().serializingJSON().value
        #expect(echoed["headers"]["Idempotency-Key"] == "8e0f…")
        #expect(hits.count == 2)
    }

    @Test func theShouldRetryExample() async throws {
        let hits = Counter()
        let server = try LoopbackServer { request in
            hits.increment() == 1 ? .text("slow down", status: 429) : .text("fresh items")
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let polite = RetryPolicy(exponentialBackoffScale: 1, shouldRetry: { request, error in
            error.responseCode == 429 || error.urlError?.code == .timedOut
        })
        let feed = session.request(server.url("/feed"), interceptor: polite)
        #expect(try await feed.validate().serializingString().value == "fresh items")
        #expect(hits.count == 2)
    }
}
