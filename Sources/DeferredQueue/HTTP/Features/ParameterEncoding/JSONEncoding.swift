import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes ``Parameters`` as a JSON body with `JSONSerialization`, as
/// Alamofire's `JSONEncoding`; sets `Content-Type: application/json` unless
/// the request has one.
public struct JSONEncoding: ParameterEncoding {
    /// Why the parameters are not JSON.
    public enum Error: Swift.Error, Sendable, CustomStringConvertible {
        /// A value `JSONSerialization` cannot write: a `Date`, a custom type,
        /// a non-finite number, a key that is not a string.
        case invalidJSONObject

        public var description: String {
            "The parameters are not a valid JSON object: a value is not a string, number, Bool, NSNull, "
                + "array or dictionary with string keys, or a number is not finite."
        }
    }

    /// Compact JSON.
    public static var `default`: JSONEncoding { JSONEncoding() }
    /// Indented JSON.
    public static var prettyPrinted: JSONEncoding { JSONEncoding(options: .prettyPrinted) }

    /// How `JSONSerialization` writes the body.
    public let options: JSONSerialization.WritingOptions

    /// Creates an encoding.
    ///
    /// - Parameter options: How `JSONSerialization` writes the body (default: compact).
    public init(options: JSONSerialization.WritingOptions = []) {
        self.options = options
    }

    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        try encode(urlRequest, withJSONObject: parameters)
    }

    /// `urlRequest` with `jsonObject` as its JSON body (an array, for instance).
    ///
    /// - Parameters:
    ///   - urlRequest: The request, or what makes it.
    ///   - jsonObject: What `JSONSerialization` writes; `nil` leaves the request as it is.
    /// - Returns: The request with the body.
    /// - Throws: ``HTTPError/parameterEncodingFailed(reason:)`` with
    ///   ``HTTPError/ParameterEncodingFailureReason/jsonEncodingFailed(error:)``.
    public func encode(_ urlRequest: any URLRequestConvertible, withJSONObject jsonObject: Any? = nil) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let jsonObject else { return request }
        // Checked first: `JSONSerialization` raises (on Apple platforms, an
        // uncatchable exception) on what it cannot write.
        guard JSONSerialization.isValidJSONObject(jsonObject) else {
            throw HTTPError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: Error.invalidJSONObject))
        }
        do {
            request.httpBody = try JSONSerialization.data(withJSONObject: jsonObject, options: options)
        } catch {
            throw HTTPError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: error))
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}
