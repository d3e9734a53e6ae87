import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Something that makes a `URLRequest` — typically a router enum with one
/// case per endpoint — that every factory of a ``Session`` takes
/// (`request(_:)`, `download(_:)`, `upload(_:with:)`, `streamRequest(_:)`),
/// as in Alamofire.
///
/// An error `asURLRequest()` throws fails every handler with
/// ``HTTPError/createURLRequestFailed(error:)`` (an ``HTTPError`` as it is),
/// and nothing is sent.
public protocol URLRequestConvertible: Sendable {
    /// The request to send.
    ///
    /// - Returns: The request.
    /// - Throws: Any error: the request fails without being sent.
    func asURLRequest() throws -> URLRequest
}

extension URLRequestConvertible {
    /// The request, or `nil` when ``asURLRequest()`` throws.
    public var urlRequest: URLRequest? { try? asURLRequest() }
}

extension URLRequest: URLRequestConvertible {
    /// The request itself.
    public func asURLRequest() -> URLRequest { self }
}
