import DeferredQueueBehaviourSuites
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// The examples of the DocC article Authentication.md, run against a
/// loopback server so the article cannot drift from the API. Each test is one
/// example as written there, with the server's URLs,
/// `TestTransport.makeSession(…)` for `Session(…)`.
@Suite("Authentication article examples compile and behave as documented")
struct AuthenticationArticleTests {
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

    /// The Redirects example: `apply` with the API's host ("localhost" here).
    struct HostBoundAuthenticator: Authenticator {
        let inner: OAuthAuthenticator

        func apply(_ credential: OAuthCredential, to urlRequest: inout URLRequest) {
            guard urlRequest.url?.host == "localhost" else { return }
            urlRequest.setValue("Bearer \(credential.accessToken)", forHTTPHeaderField: "Authorization")
        }

        func refresh(_ credential: OAuthCredential, for session: Session) async throws -> OAuthCredential {
            try await inner.refresh(credential, for: session)
        }

        func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse,
                        failDueToAuthenticationError error: HTTPError) -> Bool {
            inner.didRequest(urlRequest, with: response, failDueToAuthenticationError: error)
        }

        func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: OAuthCredential) -> Bool {
            inner.isRequest(urlRequest, authenticatedWith: credential)
        }
    }

    @Test func theRedirectsExample() async throws {
        let elsewhere = try LoopbackServer { .echo($0) }
        defer { elsewhere.shutdown() }
        let landing = elsewhere.url("/landing").absoluteString
        let sent = Recorder<String>()
        let api = try LoopbackServer { request in
            sent.append(request.header("Authorization") ?? "none")
            return .redirect(to: landing)
        }
        defer { api.shutdown() }
        let authenticator = HostBoundAuthenticator(
            inner: OAuthAuthenticator(tokenURL: "http://localhost:\(api.port)/token", tokenSession: TestTransport.makeSession())
        )
        let credential = OAuthCredential(accessToken: "A2", refreshToken: "R2", expiration: .distantFuture)
        let session = TestTransport.makeSession(interceptor: AuthenticationInterceptor(authenticator: authenticator, credential: credential))
        let echoed = try await session.request("http://localhost:\(api.port)/start").serializingJSON().value
        #expect(sent.events == ["Bearer A2"], "the API's own host gets the token")
        #expect(echoed["path"] == "/landing")
        #expect(echoed["headers"]["Authorization"] == nil, "the other origin does not")
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
