import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Puts an `Encodable` value into a `URLRequest`: its query string, or its body and
/// `Content-Type`.
///
/// The library ships two: ``URLEncodedFormParameterEncoder`` (`a=1&b[]=x`, in the query
/// or the body) and ``JSONParameterEncoder`` (a JSON body). Conform your own type to send
/// other formats. An encoder runs once per request, before the adapters, on whatever
/// thread builds the request, so it must be `Sendable` and free of side effects.
///
/// ```swift
/// struct Search: Encodable, Sendable { let q: String; let page: Int }
///
/// var request = URLRequest(url: URL(string: "https://example.com/search")!)
/// request = try URLEncodedFormParameterEncoder.default.encode(Search(q: "swift", page: 2), into: request)
/// // https://example.com/search?page=2&q=swift
/// ```
public protocol ParameterEncoder: Sendable {
    /// Returns `request` with `parameters` encoded into it.
    ///
    /// - Parameters:
    ///   - parameters: The value to encode. `nil` returns the request unchanged.
    ///   - request: The request to encode the parameters into.
    /// - Returns: A copy of `request` that carries the parameters.
    /// - Throws: ``HTTPError/parameterEncodingFailed(reason:)`` when the parameters cannot
    ///   be encoded or the request cannot carry them.
    func encode<P: Encodable & Sendable>(_ parameters: P?, into request: URLRequest) throws -> URLRequest
}
