import Foundation

extension HTTPHeader {
    /// `Accept-Encoding` with the codings this library decodes itself
    /// (``ContentDecoder/acceptEncoding``).
    public static let defaultAcceptEncoding = HTTPHeader(name: "Accept-Encoding", value: ContentDecoder.acceptEncoding)

    /// `Accept-Language` with the user's preferred languages, as the session
    /// sends it: `Locale.preferredLanguages` on Apple platforms, the POSIX
    /// locale environment on Linux.
    public static let defaultAcceptLanguage = HTTPHeader(name: "Accept-Language", value: DefaultHeaders.acceptLanguage)

    /// `User-Agent` as the session sends it: `<app>/<version> (<OS> <version>) DeferredQueue/<version>`.
    public static let defaultUserAgent = HTTPHeader(name: "User-Agent", value: DefaultHeaders.userAgent)
}

extension HTTPHeaders {
    /// ``HTTPHeader/defaultAcceptEncoding``, ``HTTPHeader/defaultAcceptLanguage``
    /// and ``HTTPHeader/defaultUserAgent``, as in Alamofire. A ``Session``
    /// adds its defaults by itself (its `Accept-Encoding` only when its
    /// transport leaves decoding to the library); this list is for building
    /// requests by hand.
    public static let `default`: HTTPHeaders = [.defaultAcceptEncoding, .defaultAcceptLanguage, .defaultUserAgent]

    /// Sorts the fields by name, ignoring case; fields of one name keep their order.
    public mutating func sort() {
        self = sorted()
    }

    /// The fields sorted by name, ignoring case; fields of one name keep their order.
    ///
    /// - Returns: The sorted list.
    public func sorted() -> HTTPHeaders {
        let indexed = enumerated().map { (offset: $0.offset, field: $0.element) }
        return HTTPHeaders(keepingDuplicates: indexed.sorted { lhs, rhs in
            let (left, right) = (lhs.field.name.lowercased(), rhs.field.name.lowercased())
            return left == right ? lhs.offset < rhs.offset : left < right
        }.map(\.field))
    }
}
