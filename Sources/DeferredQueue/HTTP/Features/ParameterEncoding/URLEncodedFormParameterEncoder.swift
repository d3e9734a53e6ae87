import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes parameters as URL-encoded form data (`a=1&b[]=x&c[d]=y`) with a
/// ``URLEncodedFormEncoder``, into the URL's query or the request's body.
///
/// Where the form goes is the ``destination-swift.property``: by default the query string
/// for `GET`, `HEAD` and `DELETE` and the body for every other method. In the query, the
/// form is appended to any query the URL already has, which is kept byte for byte. In the
/// body, `Content-Type: application/x-www-form-urlencoded; charset=utf-8` is set unless
/// the request already has a `Content-Type`.
///
/// ```swift
/// let parameters = ["foo": ["bar"], "baz": ["a", "b"]]
/// let get = try URLEncodedFormParameterEncoder.default.encode(parameters, into: URLRequest(url: url))
/// // url?baz%5B%5D=a&baz%5B%5D=b&foo%5B%5D=bar  (that is, baz[]=a&baz[]=b&foo[]=bar)
///
/// var post = URLRequest(url: url)
/// post.httpMethod = "POST"
/// post = try URLEncodedFormParameterEncoder.default.encode(parameters, into: post)
/// // body: baz%5B%5D=a&baz%5B%5D=b&foo%5B%5D=bar
/// ```
///
/// - Note: The brackets of key paths are escaped (`%5B`, `%5D`) in the query and the body
///   alike, as Alamofire sends them: a URL's query may not hold `[` or `]` (RFC 3986), and
///   servers decode both spellings the same way.
public struct URLEncodedFormParameterEncoder: ParameterEncoder {
    /// Where the encoded form goes.
    public enum Destination: Sendable, Hashable {
        /// The query string for `GET`, `HEAD` and `DELETE` requests, the body otherwise.
        case methodDependent
        /// Always the URL's query string, appended to any existing query.
        case queryString
        /// Always the body, with a form `Content-Type` unless one is set.
        case httpBody

        /// Whether the form goes into the query of a request with the given method.
        ///
        /// - Parameter method: The request's method (`URLRequest.httpMethod`; `nil` is `GET`).
        /// - Returns: `true` for the query string, `false` for the body.
        func usesQueryString(forMethod method: String?) -> Bool {
            switch self {
            case .methodDependent: return ["GET", "HEAD", "DELETE"].contains(method ?? "GET")
            case .queryString: return true
            case .httpBody: return false
            }
        }
    }

    /// An encoder with a default ``URLEncodedFormEncoder`` and the
    /// ``Destination-swift.enum/methodDependent`` destination.
    public static var `default`: URLEncodedFormParameterEncoder {
        URLEncodedFormParameterEncoder()
    }

    /// The form encoder that turns the parameters into `key=value` pairs.
    public let encoder: URLEncodedFormEncoder
    /// Where the encoded form goes.
    public let destination: Destination

    /// Creates a parameter encoder.
    ///
    /// - Parameters:
    ///   - encoder: The form encoder (array, bool, date, key and space options). Defaults
    ///     to `URLEncodedFormEncoder()`.
    ///   - destination: Where the form goes. Defaults to
    ///     ``Destination-swift.enum/methodDependent``.
    public init(encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(), destination: Destination = .methodDependent) {
        self.encoder = encoder
        self.destination = destination
    }

    /// Returns `request` with `parameters` encoded into its query or body.
    ///
    /// An empty form (for example an empty dictionary) leaves the URL unchanged, and gives
    /// an empty body.
    ///
    /// - Parameters:
    ///   - parameters: The value to encode: a struct, class or `[String: …]` dictionary.
    ///     `nil` returns the request unchanged.
    ///   - request: The request to encode the parameters into.
    /// - Returns: A copy of `request` that carries the form.
    /// - Throws: ``HTTPError/parameterEncodingFailed(reason:)``:
    ///   ``HTTPError/ParameterEncodingFailureReason/urlEncodingFailed(error:)`` when the
    ///   value cannot be form-encoded, ``HTTPError/ParameterEncodingFailureReason/missingURL``
    ///   or ``HTTPError/ParameterEncodingFailureReason/malformedURL(_:)`` when the query
    ///   cannot be set.
    public func encode<P: Encodable & Sendable>(_ parameters: P?, into request: URLRequest) throws -> URLRequest {
        guard let parameters else { return request }
        let form: String
        do {
            form = try encoder.encode(parameters)
        } catch {
            throw HTTPError.parameterEncodingFailed(reason: .urlEncodingFailed(error: error))
        }
        var request = request
        if destination.usesQueryString(forMethod: request.httpMethod) {
            guard let url = request.url else { throw HTTPError.parameterEncodingFailed(reason: .missingURL) }
            request.url = try Self.url(url, appendingQuery: form)
        } else {
            request.httpBody = Data(form.utf8)
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
            }
        }
        return request
    }

    /// `url` with `form` appended to its query, the existing query kept as it is.
    static func url(_ url: URL, appendingQuery form: String) throws -> URL {
        guard !form.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw HTTPError.parameterEncodingFailed(reason: .malformedURL(url))
        }
        let query = escapingBrackets(form)
        // The setter traps on characters a query may not hold; the form encoder escapes
        // everything else, but check rather than risk the process on a future change.
        guard query.utf8.allSatisfy(isQueryByte) else {
            throw HTTPError.parameterEncodingFailed(reason: .malformedURL(url))
        }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        guard let result = components.url else { throw HTTPError.parameterEncodingFailed(reason: .malformedURL(url)) }
        return result
    }

    /// The form with `[` and `]` percent-encoded, as a query requires.
    private static func escapingBrackets(_ form: String) -> String {
        guard form.utf8.contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }) else { return form }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(form.utf8.count + 8)
        for byte in form.utf8 {
            switch byte {
            case UInt8(ascii: "["): bytes.append(contentsOf: "%5B".utf8)
            case UInt8(ascii: "]"): bytes.append(contentsOf: "%5D".utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether RFC 3986 allows `byte` in a query: unreserved, sub-delims, `:@/?` and `%`.
    private static func isQueryByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~!$&'()*+,;=:@/?%".utf8.contains(byte)
        }
    }
}
