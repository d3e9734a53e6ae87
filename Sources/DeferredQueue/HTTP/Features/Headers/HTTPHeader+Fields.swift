import Foundation

// The remaining named fields of Alamofire's `HTTPHeader`.
extension HTTPHeader {
    /// An `Accept-Charset` field.
    ///
    /// - Parameter value: The acceptable character sets, e.g. `"utf-8"`.
    /// - Returns: The field.
    public static func acceptCharset(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Charset", value: value)
    }

    /// An `Accept-Language` field.
    ///
    /// - Parameter value: The acceptable languages, e.g. `"en;q=1.0"`.
    /// - Returns: The field.
    public static func acceptLanguage(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Language", value: value)
    }

    /// An `Accept-Encoding` field. A session sets its own, naming only the
    /// codings it decodes; set this one only to narrow it.
    ///
    /// - Parameter value: The acceptable content codings, e.g. `"gzip"`.
    /// - Returns: The field.
    public static func acceptEncoding(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Encoding", value: value)
    }

    /// An `Authorization` field with a value as given.
    ///
    /// - Parameter value: The whole value, scheme included.
    /// - Returns: The field.
    public static func authorization(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: value)
    }

    /// A `Content-Disposition` field.
    ///
    /// - Parameter value: The disposition, e.g. `"form-data; name=\"file\""`.
    /// - Returns: The field.
    public static func contentDisposition(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Disposition", value: value)
    }

    /// A `Content-Encoding` field, for a body already encoded (see
    /// ``DeflateRequestCompressor``).
    ///
    /// - Parameter value: The coding, e.g. `"deflate"`.
    /// - Returns: The field.
    public static func contentEncoding(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Encoding", value: value)
    }

    /// A `Sec-WebSocket-Protocol` field.
    ///
    /// - Parameter value: The subprotocols, e.g. `"chat"`.
    /// - Returns: The field.
    public static func websocketProtocol(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Sec-WebSocket-Protocol", value: value)
    }
}

extension HTTPHeaders {
    /// The value for `name` (any casing), as the subscript reads it:
    /// Alamofire's spelling.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The value, the values joined with `", "` when repeated, or `nil`.
    public func value(for name: String) -> String? {
        self[name]
    }
}
