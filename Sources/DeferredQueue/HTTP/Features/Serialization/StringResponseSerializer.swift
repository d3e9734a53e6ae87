import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Serializes the body as text: the serializer behind `responseString` and
/// `serializingString`.
///
/// The encoding is `encoding` when given; otherwise the `charset` of the response's
/// `Content-Type`; otherwise UTF-8 (a byte order mark picks UTF-16); and a body that is
/// not valid UTF-8 falls back to ISO-8859-1, so without a declared encoding decoding
/// never fails. An encoding that was given or declared and does not fit the body is
/// ``HTTPError/SerializationFailureReason/stringEncodingFailed(encoding:)``.
///
/// An empty body is `""` where it is allowed (204, 205 and `HEAD` by default) and
/// ``HTTPError/SerializationFailureReason/inputDataNilOrZeroLength(serializer:)``
/// elsewhere.
public struct StringResponseSerializer: ResponseSerializer {
    /// Runs on the body before it is decoded.
    public let dataPreprocessor: any DataPreprocessor
    /// The encoding to use, or `nil` to follow the response (see above).
    public let encoding: String.Encoding?
    /// The status codes for which an empty body is a success.
    public let emptyResponseCodes: Set<Int>
    /// The request methods for which an empty body is a success.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - encoding: Overrides the response's charset (default `nil`: follow the response).
    ///   - emptyResponseCodes: Where an empty body is a success (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is a success (default: `HEAD`).
    public init(
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.encoding = encoding
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// Returns the body as text.
    ///
    /// - Parameters:
    ///   - request: The request as sent.
    ///   - response: The server's response; its `Content-Type` charset picks the encoding.
    ///   - data: The body.
    ///   - error: A failure so far, thrown unchanged.
    /// - Returns: The text, or `""` for an allowed empty body.
    /// - Throws: `error`, or an ``HTTPError`` for a disallowed empty body or text that is
    ///   not valid in the given or declared encoding.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> String {
        try serialize(request: request, head: response.map(ResponseHead.init), data: data, error: error)
    }

    /// The same from the response's head (the session's call: no response is made).
    public func serialize(request: URLRequest?, head: ResponseHead?, data: Data?, error: HTTPError?) throws -> String {
        guard let body = try preparedBody(request: request, head: head, data: data, error: error) else { return "" }
        return try decodeText(body, explicit: encoding, contentType: head?.value(forHTTPHeaderField: "Content-Type")).get()
    }
}
