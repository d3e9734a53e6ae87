/// A credential an ``Authenticator`` applies to requests: an OAuth access
/// token, a signed session, anything that can expire.
///
/// ```swift
/// struct OAuthCredential: AuthenticationCredential {
///     let accessToken: String
///     let refreshToken: String
///     let expiration: Date
///     // Refresh a little early, so a request never goes out with a token
///     // that expires on the way.
///     var requiresRefresh: Bool { Date(timeIntervalSinceNow: 60) > expiration }
/// }
/// ```
public protocol AuthenticationCredential: Sendable {
    /// Whether the credential must be refreshed before it is used.
    ///
    /// ``AuthenticationInterceptor`` reads it before every attempt; when it is
    /// `true` the attempt waits for one refresh, shared with every other
    /// request that needs it.
    var requiresRefresh: Bool { get }
}
