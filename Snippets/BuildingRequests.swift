// The examples of the DocC article "Building requests", as one program.
// Run: swift run BuildingRequests   (it talks to api.example.com, which does not
// answer: each example prints the error it gets.)
import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking   // URLRequest and URLSessionConfiguration on Linux
#endif

// snippet.hide
func parameters(session: Session) async throws {
// snippet.show
// snippet.query
struct Search: Encodable, Sendable {
    let q: String
    let page: Int
}

let results = try await session.request("https://api.example.com/search",
                                        parameters: Search(q: "swift concurrency", page: 2))
    .validate()
    .serializingJSON()
    .value
// GET /search?page=2&q=swift%20concurrency
// snippet.end
// snippet.hide
    print(results)
}

func json(session: Session) async throws {
// snippet.show
// snippet.json
struct NewItem: Encodable, Sendable {
    let title: String
    let tags: [String]
}

let created = try await session.request("https://api.example.com/items", method: .post,
                                        parameters: NewItem(title: "Milk", tags: ["groceries"]),
                                        encoder: JSONParameterEncoder.sortedKeys)
    .validate()
    .serializingJSON()
    .value
// POST /items  {"tags":["groceries"],"title":"Milk"}
// snippet.end
// snippet.hide
    print(created)
}

func form(session: Session) async {
// snippet.show
// snippet.form
struct Filter: Encodable, Sendable {
    let tags: [String]
    let archived: Bool
}

let form = URLEncodedFormParameterEncoder(
    encoder: URLEncodedFormEncoder(arrayEncoding: .noBrackets, boolEncoding: .literal),
    destination: .httpBody
)
let request = session.request("https://api.example.com/filters", method: .put,
                              parameters: Filter(tags: ["a", "b"], archived: false), encoder: form)
// PUT /filters  archived=false&tags=a&tags=b
// snippet.end
// snippet.hide
    print(await request.serializingData().result)
}

func untyped(session: Session) async {
// snippet.show
// snippet.untyped
// Alamofire's [String: Any] parameters, unchanged:
let parameters: Parameters = ["title": "Milk", "tags": ["groceries"], "urgent": true]
let posted = session.request("https://api.example.com/items", method: .post,
                             parameters: parameters, encoding: JSONEncoding.default)
let listed = session.request("https://api.example.com/items", parameters: ["page": 2],
                             requestModifier: { $0.timeoutInterval = 10 })
// POST /items  {"tags":["groceries"],"title":"Milk","urgent":true}
// GET /items?page=2, giving up after 10 s without data
// snippet.end
// snippet.hide
    print(await posted.serializingData().result, await listed.serializingData().result)
}

func headers(session: Session, token: String) async {
// snippet.show
// snippet.headers
let headers: HTTPHeaders = [.accept("application/json"), .authorization(bearerToken: token)]
let profile = session.request("https://api.example.com/me", headers: headers)
// snippet.end
// snippet.hide
    print(await profile.serializingData().result)
}

func defaultHeaders(session: Session) async {
// snippet.show
// snippet.defaultHeaders
let request = session.request("https://api.example.com/status", headers: [.userAgent("MyApp/2.1 (build 7)")])

let configuration = URLSessionConfiguration.default
configuration.httpAdditionalHeaders = ["User-Agent": "MyApp/2.1 (build 7)"]
let branded = Session(configuration: configuration)
// snippet.end
// snippet.hide
    print(await request.serializingData().result)
    print(await branded.request("https://api.example.com/status").serializingData().result)
}

// snippet.show
// snippet.interceptors
struct APIKeyAdapter: RequestInterceptor {
    let key: String

    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        var request = urlRequest
        request.headers.update(name: "X-API-Key", value: key)
        return request
    }
}

struct RetryOnConflict: RequestInterceptor {
    func retry(_ request: Request, for session: Session, dueTo error: HTTPError) async -> RetryResult {
        error.responseCode == 409 && request.retryCount == 0 ? .retryWithDelay(0.1) : .doNotRetry
    }
}

// snippet.hide
func interceptors() async {
// snippet.show
let session = Session(interceptor: APIKeyAdapter(key: "secret"))
let saved = session.request("https://api.example.com/documents/7", method: .put,
                            interceptor: Interceptor(retriers: [RetryOnConflict()]))
// snippet.end
// snippet.hide
    print(await saved.serializingData().result)
}

func retryPolicy() async {
// snippet.show
// snippet.retryPolicy
let resilient = Session(retryPolicy: RetryPolicy(retryLimit: 3))

// This POST is safe to repeat: the server deduplicates by the idempotency key.
let payment = resilient.request("https://api.example.com/payments", method: .post,
                                headers: ["Idempotency-Key": "8e0f…"],
                                interceptor: RetryPolicy(retryableHTTPMethods: [.post]))
// snippet.end
// snippet.hide
    print(await payment.serializingData().result)
}

func shouldRetry(session: Session) async {
// snippet.show
// snippet.shouldRetry
let polite = RetryPolicy(exponentialBackoffScale: 1, shouldRetry: { request, error in
    error.responseCode == 429 || error.urlError?.code == .timedOut
})
let feed = session.request("https://api.example.com/feed", interceptor: polite)
// snippet.end
// snippet.hide
    print(await feed.serializingData().result)
}

func alamofireShape() async {
// snippet.show
// snippet.alamofireShape
// Written for Alamofire: compiles unchanged.
struct BearerAdapter: RequestAdapter {
    let token: String

    func adapt(_ urlRequest: URLRequest, for session: Session,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = urlRequest
        request.headers.update(.authorization(bearerToken: token))
        completion(.success(request))
    }
}

let session = Session(interceptor: Interceptor(
    adapters: [BearerAdapter(token: "secret"), DeflateRequestCompressor()],
    retriers: [ConnectionLostRetryPolicy()]
))
let upload = session.request("https://api.example.com/reports", method: .post, body: Data("report".utf8))
// snippet.end
// snippet.hide
    print(await upload.serializingData().result)
}

let session = Session()
do { try await parameters(session: session) } catch { print(error) }
do { try await json(session: session) } catch { print(error) }
await form(session: session)
await untyped(session: session)
await headers(session: session, token: "token")
await defaultHeaders(session: session)
await interceptors()
await retryPolicy()
await shouldRetry(session: session)
await alamofireShape()
// snippet.show
