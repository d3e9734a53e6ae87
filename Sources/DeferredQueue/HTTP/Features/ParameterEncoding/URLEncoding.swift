import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes ``Parameters`` as a URL-encoded form (`a=1&b[]=x`), in the URL's
/// query or in the body, as Alamofire's `URLEncoding`.
///
/// Keys are sorted at every level, so a request's URL is the same on every
/// run; keys and values are percent-escaped (RFC 3986: unreserved
/// characters, `?` and `/` pass). A body gets
/// `Content-Type: application/x-www-form-urlencoded; charset=utf-8` unless
/// the request has one.
public struct URLEncoding: ParameterEncoding {
    /// Where the parameters go.
    public enum Destination: Sendable {
        /// The query for GET, HEAD and DELETE, the body otherwise.
        case methodDependent
        /// Always the query.
        case queryString
        /// Always the body.
        case httpBody

        func encodesInURL(method: String?) -> Bool {
            switch self {
            case .methodDependent: ["GET", "HEAD", "DELETE"].contains(method ?? "GET")
            case .queryString: true
            case .httpBody: false
            }
        }
    }

    /// How an array's elements are keyed.
    public enum ArrayEncoding: Sendable {
        /// `key[]=a&key[]=b` (the default).
        case brackets
        /// `key=a&key=b`.
        case noBrackets
        /// `key[0]=a&key[1]=b`.
        case indexInBrackets
        /// The key the closure makes of the array's key and the element's index.
        case custom(@Sendable (_ key: String, _ index: Int) -> String)

        func encode(key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: "\(key)[]"
            case .noBrackets: key
            case .indexInBrackets: "\(key)[\(index)]"
            case .custom(let encode): encode(key, index)
            }
        }
    }

    /// How a `Bool` is written.
    public enum BoolEncoding: Sendable {
        /// `1` and `0` (the default).
        case numeric
        /// `true` and `false`.
        case literal

        func encode(value: Bool) -> String {
            switch self {
            case .numeric: value ? "1" : "0"
            case .literal: value ? "true" : "false"
            }
        }
    }

    /// Query for GET, HEAD and DELETE, body otherwise; brackets; numeric `Bool`s.
    public static var `default`: URLEncoding { URLEncoding() }
    /// Always in the query.
    public static var queryString: URLEncoding { URLEncoding(destination: .queryString) }
    /// Always in the body.
    public static var httpBody: URLEncoding { URLEncoding(destination: .httpBody) }

    /// Where the parameters go.
    public let destination: Destination
    /// How an array's elements are keyed.
    public let arrayEncoding: ArrayEncoding
    /// How a `Bool` is written.
    public let boolEncoding: BoolEncoding

    /// Creates an encoding.
    ///
    /// - Parameters:
    ///   - destination: Where the parameters go (default: by method).
    ///   - arrayEncoding: How an array's elements are keyed (default: `key[]`).
    ///   - boolEncoding: How a `Bool` is written (default: `1`/`0`).
    public init(
        destination: Destination = .methodDependent, arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric
    ) {
        self.destination = destination
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let parameters else { return request }
        if destination.encodesInURL(method: request.httpMethod) {
            guard let url = request.url else { throw HTTPError.parameterEncodingFailed(reason: .missingURL) }
            request.url = try URLEncodedFormParameterEncoder.url(url, appendingQuery: query(parameters))
        } else {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
            }
            request.httpBody = Data(try query(parameters).utf8)
        }
        return request
    }

    /// The escaped `(key, value)` pairs for `value` under `key`: nested
    /// dictionaries as `key[nested]`, arrays by ``arrayEncoding``, `Bool`s by
    /// ``boolEncoding``, anything else as its description.
    ///
    /// - Parameters:
    ///   - key: The key, unescaped.
    ///   - value: The value.
    /// - Returns: The pairs, escaped, in order.
    public func queryComponents(fromKey key: String, value: Any) -> [(String, String)] {
        var components: [(String, String)] = []
        // Nested deeper than `maximumNesting`: no pairs (`encode` throws instead).
        do { try append(value, key: key, to: &components, depth: 0) } catch { return [] }
        return components
    }

    /// How deep parameters may nest (here and in ``URLEncodedFormEncoder``):
    /// each level recurses, and a deep enough value overflows the stack.
    static let maximumNesting = 100

    /// `string` percent-escaped for a query key or value.
    ///
    /// - Parameter string: The text.
    /// - Returns: The text with every byte other than unreserved characters, `?` and `/` as `%XX`.
    public func escape(_ string: String) -> String {
        FormSerializer.escape(string, plusForSpace: false)
    }

    private func query(_ parameters: [String: any Any & Sendable]) throws -> String {
        var components: [(String, String)] = []
        for key in parameters.keys.sorted() {
            if let value = parameters[key] { try append(value, key: key, to: &components, depth: 0) }
        }
        return components.map { "\($0)=\($1)" }.joined(separator: "&")
    }

    private func append(_ value: Any, key: String, to components: inout [(String, String)], depth: Int) throws {
        guard depth <= Self.maximumNesting else {
            throw HTTPError.parameterEncodingFailed(reason: .urlEncodingFailed(error: EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "The value of \"\(key.prefix(40))…\" is nested more than \(Self.maximumNesting) levels deep"
            ))))
        }
        switch value {
        case let dictionary as [String: Any]:
            for nestedKey in dictionary.keys.sorted() {
                if let nested = dictionary[nestedKey] { try append(nested, key: "\(key)[\(nestedKey)]", to: &components, depth: depth + 1) }
            }
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                try append(element, key: arrayEncoding.encode(key: key, atIndex: index), to: &components, depth: depth + 1)
            }
        case let bool as Bool where type(of: value) == Bool.self:
            components.append((escape(key), escape(boolEncoding.encode(value: bool))))
        case let number as NSNumber:
            let text = Self.isBool(number) ? boolEncoding.encode(value: number.boolValue) : Self.decimal(number)
            components.append((escape(key), escape(text)))
        default:
            components.append((escape(key), escape("\(value)")))
        }
    }

    /// `number` as Apple platforms write it: an integral `Double` or `Float`
    /// without a fraction (`1`, where corelibs' `NSNumber` writes `1.0`), so
    /// a query is the same on every platform.
    private static func decimal(_ number: NSNumber) -> String {
        let type = String(cString: number.objCType)
        let value = number.doubleValue
        // Not a `Decimal` (type `d` too): its digits are exact, a `Double`'s are not.
        guard type == "d" || type == "f", !(number is NSDecimalNumber), value.rounded() == value, abs(value) < 1e15 else {
            return "\(number)"
        }
        return String(Int64(value))
    }

    /// Whether `number` holds a `Bool` (Objective-C type `c`, on every platform).
    private static func isBool(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
