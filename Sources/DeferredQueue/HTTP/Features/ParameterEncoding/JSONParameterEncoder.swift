import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes parameters as a JSON body with `JSONEncoder`, and sets `Content-Type:
/// application/json` unless the request already has a `Content-Type`.
///
/// ```swift
/// let parameters = ["foo": ["bar"], "baz": ["a", "b"]]
/// let request = try JSONParameterEncoder.sortedKeys.encode(parameters, into: urlRequest)
/// // body: {"baz":["a","b"],"foo":["bar"]}
/// ```
///
/// For other date, key or float strategies, configure a `JSONEncoder` and pass it to
/// ``init(encoder:)``.
///
/// - Note: `JSONEncoder` is `Sendable` (it guards its own options), so the encoder keeps
///   the instance it is given. Configure it fully before handing it over: a later change to
///   it changes what this encoder produces.
public struct JSONParameterEncoder: ParameterEncoder {
    /// An encoder with a default `JSONEncoder`: compact output, keys in the order the
    /// value encodes them.
    public static var `default`: JSONParameterEncoder {
        JSONParameterEncoder()
    }

    /// An encoder whose output is indented, one member per line.
    public static var prettyPrinted: JSONParameterEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .prettyPrinted
        return JSONParameterEncoder(encoder: encoder)
    }

    /// An encoder whose output is compact with object keys sorted, so equal values give
    /// equal bytes (useful for caching and signatures).
    public static var sortedKeys: JSONParameterEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return JSONParameterEncoder(encoder: encoder)
    }

    /// The `JSONEncoder` that writes the body.
    public let encoder: JSONEncoder

    /// Creates an encoder that writes bodies with `encoder`.
    ///
    /// - Parameter encoder: The `JSONEncoder` to use. Defaults to a new one.
    public init(encoder: JSONEncoder = JSONEncoder()) {
        self.encoder = encoder
    }

    /// Returns `request` with `parameters` as its JSON body.
    ///
    /// The method is not changed: a JSON body on a `GET` is sent as it is, and some
    /// servers and URL loading systems reject it.
    ///
    /// - Parameters:
    ///   - parameters: The value to encode. `nil` returns the request unchanged.
    ///   - request: The request to encode the parameters into.
    /// - Returns: A copy of `request` with the JSON body, and `Content-Type:
    ///   application/json` unless it already had a `Content-Type`.
    /// - Throws: ``HTTPError/parameterEncodingFailed(reason:)`` with
    ///   ``HTTPError/ParameterEncodingFailureReason/jsonEncodingFailed(error:)`` when
    ///   `JSONEncoder` fails.
    public func encode<P: Encodable & Sendable>(_ parameters: P?, into request: URLRequest) throws -> URLRequest {
        guard let parameters else { return request }
        let body: Data
        do {
            body = try encoder.encode(parameters)
        } catch {
            throw HTTPError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: error))
        }
        var request = request
        request.httpBody = body
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}
