import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Alamofire's `URLRequest` conveniences, for routers written against it.
extension URLRequest {
    /// Creates a request for `url` with `method` and `headers`.
    ///
    /// - Parameters:
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method.
    ///   - headers: Header fields; `nil` for none.
    /// - Throws: ``HTTPError/invalidURL(_:)`` when `url` is not a URL.
    public init(url: any URLConvertible, method: HTTPMethod, headers: HTTPHeaders? = nil) throws {
        self.init(url: try url.asURL())
        httpMethod = method.rawValue
        if let headers { self.headers = headers }
    }

    /// The request's method as an ``HTTPMethod``; `nil` when it has none.
    public var method: HTTPMethod? {
        get { httpMethod.map(HTTPMethod.init(rawValue:)) }
        set { httpMethod = newValue?.rawValue }
    }
}
