// Bearer tokens that expire: an AuthenticationInterceptor applies the token to
// every attempt and refreshes it (once for all waiting requests) with an
// OAuth 2 refresh-token grant.
// Run: swift run TokenRefresh [api-url] [token-url]
import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking   // URLRequest and HTTPURLResponse on Linux
#endif

// snippet.credential
struct OAuthCredential: AuthenticationCredential {
    let accessToken: String
    let refreshToken: String
    let expiration: Date

    // Refresh a minute early, so no request leaves with a token about to expire.
    var requiresRefresh: Bool { Date(timeIntervalSinceNow: 60) > expiration }
}
// snippet.end

// snippet.authenticator
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
        urlRequest.headers.update(.authorization(bearerToken: credential.accessToken))
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
// snippet.end

struct User: Decodable, Sendable { let name: String }

let arguments = CommandLine.arguments.dropFirst()
let apiURL = arguments.first ?? "https://api.example.com/me"
let tokenURL = arguments.dropFirst().first ?? "https://auth.example.com/token"
// A credential saved at the last sign-in, here already expired: refreshed before the first request.
let savedCredential = OAuthCredential(accessToken: "expired", refreshToken: "saved-refresh-token",
                                      expiration: .distantPast)

// snippet.session
let authenticator = OAuthAuthenticator(tokenURL: tokenURL, tokenSession: Session())
let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: savedCredential)
let api = Session(interceptor: interceptor)

do {
    let me = try await api.request(apiURL)
        .validate()
        .serializingDecodable(User.self)
        .value
    print("signed in as", me.name)
} catch {
    print(error)   // a failed refresh fails the request with the refresh's error
}
// snippet.end

// snippet.hide
/// Signing in and out: start without a credential.
@MainActor func signInAndOut(access: String, refresh: String) async {
// snippet.show
// snippet.signIn
let interceptor = AuthenticationInterceptor(authenticator: authenticator)
let api = Session(interceptor: interceptor)
// … after the sign-in screen:
interceptor.credential = OAuthCredential(accessToken: access, refreshToken: refresh,
                                         expiration: Date(timeIntervalSinceNow: 3600))
// … and on sign-out:
interceptor.credential = nil
// snippet.end
// snippet.hide
    print(await api.request(apiURL).serializingData().result)   // fails: missingCredential
}
await signInAndOut(access: "access-token", refresh: "refresh-token")
// snippet.show
