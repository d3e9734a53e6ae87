import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing
@testable import DeferredQueue

/// The examples of the DocC articles BuildingRequests.md and Authentication.md,
/// run against a loopback server so the articles cannot drift from the API.
/// Each test is one example as written there, with the server's URLs,
/// `TestTransport.makeSession(…)` for `Session(…)` (except where the example
/// is about a URLSession configuration), and `queue: handlerQueue` for handlers.
@Suite("BuildingRequests and Authentication article examples compile and behave as documented")
struct RequestArticlesExampleTests {
    // MARK: - BuildingRequests.md

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
                                        interceptor: RetryPolicy(retryableMethods: [.post]))
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
        let polite = RetryPolicy(backoffScale: 1, shouldRetry: { request, error in
            error.responseCode == 429 || error.urlError?.code == .timedOut
        })
        let feed = session.request(server.url("/feed"), interceptor: polite)
        #expect(try await feed.validate().serializingString().value == "fresh items")
        #expect(hits.count == 2)
    }

    // MARK: - Authentication.md

    @Test func theBasicAuthenticationExamples() async throws {
        let expected = HTTPHeader.authorization(username: "ada", password: "lovelace").value
        let hits = Counter()
        let server = try LoopbackServer { request in
            hits.increment()
            guard request.header("Authorization") == expected else {
                return .response(status: 401, headers: [("WWW-Authenticate", #"Basic realm="reports""#)])
            }
            return .text("report 42")
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let report = try await session.request(server.url("/reports/42"))
            .authenticate(username: "ada", password: "lovelace")
            .validate()
            .serializingString()
            .value
        #expect(report == "report 42")
        #expect(hits.count == 2, "the challenge, then the answer")

        let eager = session.request(server.url("/reports/42"),
                                    headers: [.authorization(username: "ada", password: "lovelace")])
        #expect(try await eager.validate().serializingString().value == "report 42")
        #expect(hits.count == 3, "sent with the first attempt")
    }

    struct OAuthCredential: AuthenticationCredential {
        let accessToken: String
        let refreshToken: String
        let expiration: Date

        // Refresh a minute early, so no request leaves with a token about to expire.
        var requiresRefresh: Bool { Date(timeIntervalSinceNow: 60) > expiration }
    }

    struct OAuthAuthenticator: Authenticator {
        let tokenURL: String
        /// Sends the refresh request; it must not use the interceptor itself.
        let tokenSession: Session

        struct TokenResponse: Decodable, Sendable {
            let access_token: String
            let refresh_token: String
            let expires_in: Double
        }

        func apply(_ credential: OAuthCredential, to urlRequest: inout URLRequest) {
            urlRequest.setValue("Bearer \(credential.accessToken)", forHTTPHeaderField: "Authorization")
        }

        func refresh(_ credential: OAuthCredential, for session: Session) async throws -> OAuthCredential {
            let parameters = ["grant_type": "refresh_token", "refresh_token": credential.refreshToken]
            let token = try await tokenSession.request(tokenURL, method: .post, parameters: parameters)
                .validate()
                .serializingDecodable(TokenResponse.self)
                .value
            return OAuthCredential(accessToken: token.access_token, refreshToken: token.refresh_token,
                                   expiration: Date(timeIntervalSinceNow: token.expires_in))
        }

        func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse,
                        failDueToAuthenticationError error: HTTPError) -> Bool {
            response.statusCode == 401
        }

        func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: OAuthCredential) -> Bool {
            urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.accessToken)"
        }
    }

    struct User: Decodable, Sendable { let name: String }

    @Test(arguments: [true, false])
    func theOAuthExample(tokenExpired: Bool) async throws {
        let server = try OAuthServer()
        // Either expired (refreshed before sending) or revoked by the server (refreshed after a 401).
        let savedCredential = OAuthCredential(accessToken: "A1", refreshToken: "R1",
                                              expiration: tokenExpired ? .distantPast : .distantFuture)

        let authenticator = OAuthAuthenticator(tokenURL: server.url("/token"), tokenSession: TestTransport.makeSession())
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: savedCredential)
        let api = TestTransport.makeSession(interceptor: interceptor)

        let me = try await api.request(server.url("/me"))
            .validate()
            .serializingDecodable(User.self)
            .value
        #expect(me.name == "Ada")
        #expect(server.grants.events == ["refresh_token R1"])
        #expect(interceptor.credential?.accessToken == "A2")
        _ = try await api.request(server.url("/me")).validate().serializingDecodable(User.self).value
        #expect(server.grants.count == 1, "the refreshed token is used as it is")
    }

    @Test func theSignInExample() async throws {
        let server = try OAuthServer()
        let authenticator = OAuthAuthenticator(tokenURL: server.url("/token"), tokenSession: TestTransport.makeSession())
        let (access, refresh) = ("A2", "R2")

        let interceptor = AuthenticationInterceptor(authenticator: authenticator)
        let api = TestTransport.makeSession(interceptor: interceptor)
        let before = await api.request(server.url("/me")).serializingData().result
        #expect(((try? before.get()) == nil))
        // … after the sign-in screen:
        interceptor.credential = OAuthCredential(accessToken: access, refreshToken: refresh,
                                                 expiration: Date(timeIntervalSinceNow: 3600))
        #expect(try await api.request(server.url("/me")).validate().serializingDecodable(User.self).value.name == "Ada")
        // … and on sign-out:
        interceptor.credential = nil
        let after = await api.request(server.url("/me")).serializingData().result
        guard case .failure(HTTPError.requestAdaptationFailed(let error)) = after else {
            Issue.record("expected requestAdaptationFailed, got \(after)")
            return
        }
        #expect(error as? AuthenticationError == .missingCredential)
        #expect(server.meRequests.count == 1, "only the signed-in request went out")
    }
}

/// An OAuth server: `POST /token` trades refresh token `R1` for `A2`/`R2`;
/// `/me` answers `{"name":"Ada"}` to `Bearer A2` and 401 otherwise.
private final class OAuthServer: Sendable {
    private let server: LoopbackServer
    /// `grant_type refresh_token` of each token request.
    let grants = Recorder<String>()
    let meRequests = Counter()

    init() throws {
        let (grants, meRequests) = (grants, meRequests)
        server = try LoopbackServer { request in
            switch request.path {
            case "/token":
                var form: [String: String] = [:]
                for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    if parts.count == 2 { form[parts[0]] = parts[1] }
                }
                grants.append("\(form["grant_type"] ?? "?") \(form["refresh_token"] ?? "?")")
                guard request.method == "POST", form["refresh_token"] == "R1" else {
                    return .json(#"{"error":"invalid_grant"}"#, status: 400)
                }
                return .json(#"{"access_token":"A2","refresh_token":"R2","expires_in":3600,"token_type":"Bearer"}"#)
            case "/me":
                meRequests.increment()
                guard request.header("Authorization") == "Bearer A2" else {
                    return .response(status: 401, headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)])
                }
                return .json(#"{"name":"Ada"}"#)
            default:
                return .text("no route", status: 404)
            }
        }
    }

    deinit { server.shutdown() }

    func url(_ path: String) -> String { server.url(path).absoluteString }
}
