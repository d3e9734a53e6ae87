/// Why an ``AuthenticationInterceptor`` could not authenticate a request.
public enum AuthenticationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The interceptor has no credential to apply. Set
    /// ``AuthenticationInterceptor/credential`` (after signing in) before
    /// sending requests through it.
    case missingCredential
    /// The credential was refreshed more often than the interceptor's
    /// ``AuthenticationInterceptor/RefreshWindow`` allows, so it stopped
    /// instead of refreshing forever.
    case excessiveRefresh
    /// A request sent while the interceptor refreshes its credential (the
    /// refresh request itself) went through the same interceptor, which would
    /// wait for the refresh that waits for the request. Send the refresh
    /// request on another session, or without this interceptor.
    case refreshRequestIntercepted

    /// What happened and what to do.
    public var description: String {
        switch self {
        case .missingCredential:
            return "The AuthenticationInterceptor has no credential, so the request was not sent. "
                + "Set its credential (for example after signing in) before sending requests through it."
        case .excessiveRefresh:
            return "The credential was refreshed more times than the interceptor's refresh window allows "
                + "(maximumAttempts within interval seconds), yet requests still fail authentication. "
                + "Check that the refreshed credential is valid and that didRequest(_:with:failDueToAuthenticationError:) "
                + "and isRequest(_:authenticatedWith:) recognise it."
        case .refreshRequestIntercepted:
            return "The authenticator's refresh request went through the AuthenticationInterceptor that is refreshing, "
                + "which would wait for itself forever. Send the refresh request on a session without that interceptor, "
                + "or pass the interceptor per request instead of to the session."
        }
    }
}
