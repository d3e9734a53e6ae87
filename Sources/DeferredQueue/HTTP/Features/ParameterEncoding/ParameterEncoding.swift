import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Untyped parameters, as Alamofire's `[String: Any]` dictionaries: strings,
/// numbers, `Bool`s, and nested arrays and dictionaries of them.
///
/// Prefer an `Encodable` value with a ``ParameterEncoder``: it is checked by
/// the compiler. `Parameters` with a ``ParameterEncoding`` is for code that
/// moves from Alamofire as it is.
public typealias Parameters = [String: any Any & Sendable]

/// Puts ``Parameters`` into a request: its URL's query, or its body.
///
/// ```swift
/// import DeferredQueue
///
/// let search = Session.default.request("https://api.example.com/search",
///                                      parameters: ["q": "swift", "page": 2])            // ?page=2&q=swift
/// let create = Session.default.request("https://api.example.com/items", method: .post,
///                                      parameters: ["name": "pen", "tags": ["a", "b"]],
///                                      encoding: JSONEncoding.default)                    // a JSON body
/// ```
public protocol ParameterEncoding: Sendable {
    /// `urlRequest` with `parameters` in it.
    ///
    /// - Parameters:
    ///   - urlRequest: The request, or what makes it.
    ///   - parameters: The parameters; `nil` leaves the request as it is.
    /// - Returns: The request with the parameters.
    /// - Throws: ``HTTPError/parameterEncodingFailed(reason:)`` when they
    ///   cannot be encoded, or what `urlRequest` throws.
    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest
}
