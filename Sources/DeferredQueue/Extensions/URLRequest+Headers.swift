import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The request's header fields as ``HTTPHeaders`` (Alamofire's `URLRequest.headers`).
    ///
    /// Setting them assigns every field at once. Prefer it in a ``RequestAdapter`` to
    /// `setValue(_:forHTTPHeaderField:)`: on Linux, Foundation's `setValue` and `addValue`
    /// drop a value holding CR, LF or NUL without a word (an `Authorization` would
    /// vanish), whereas a value set here reaches the session's check and the request
    /// fails with ``HTTPError/urlRequestValidationFailed(reason:)``.
    ///
    /// ```swift
    /// func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
    ///     var urlRequest = urlRequest
    ///     urlRequest.headers.update(.authorization(bearerToken: try await tokens.current()))
    ///     return urlRequest
    /// }
    /// ```
    public var headers: HTTPHeaders {
        get { allHTTPHeaderFields.map(HTTPHeaders.init) ?? HTTPHeaders() }
        set { allHTTPHeaderFields = newValue.dictionary }
    }
}
