/// An HTTP request method, such as `GET` or `POST`.
///
/// Methods are compared exactly as written (HTTP method names are case-sensitive), so use
/// the statics or upper-case names. Any other token works through a string literal:
///
/// ```swift
/// let report: HTTPMethod = "REPORT"
/// request(url, method: .post, body: payload)
/// ```
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method name as sent on the request line, e.g. `"GET"`.
    public let rawValue: String

    /// Creates a method from its name.
    ///
    /// - Parameter rawValue: The method name, e.g. `"PROPFIND"`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from a string literal.
    ///
    /// - Parameter value: The method name.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The method name, e.g. `"GET"`.
    public var description: String {
        rawValue
    }

    /// `GET`: retrieve a resource.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`: like `GET`, without the body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`: submit data to be processed.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: modify part of a resource.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `OPTIONS`: ask which methods and features a resource supports.
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `TRACE`: echo the request back (diagnostics).
    public static let trace = HTTPMethod(rawValue: "TRACE")
    /// `CONNECT`: open a tunnel through a proxy.
    public static let connect = HTTPMethod(rawValue: "CONNECT")
    /// `QUERY`: a safe, idempotent `GET` whose query travels in the body
    /// (draft-ietf-httpbis-safe-method-w-body; Alamofire 5.12's name). Not in
    /// `RetryPolicy`'s default methods, as in Alamofire.
    public static let query = HTTPMethod(rawValue: "QUERY")

    /// Whether repeating the request has the same effect as sending it once (RFC 9110
    /// §9.2.2): true for `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`, `TRACE` and `QUERY`. Only
    /// idempotent requests are safe to retry automatically.
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE", "QUERY": return true
        default: return false
        }
    }
}
