import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Parses the body as ``JSON``: the serializer behind `responseJSON` and
/// `serializingJSON`.
///
/// The body `null` is ``JSON/null``; so is an empty body where one is allowed (204, 205
/// and `HEAD` by default), as Alamofire answers `NSNull` there. An empty body elsewhere
/// is ``HTTPError/SerializationFailureReason/inputDataNilOrZeroLength(serializer:)``,
/// and a body that is not JSON is ``HTTPError/SerializationFailureReason/jsonSyntax(_:)``,
/// which says where it broke. Pass `emptyResponseCodes: []` to treat an empty 204 as an
/// error too.
public struct JSONResponseSerializer: ResponseSerializer {
    /// Runs on the body before it is parsed.
    public let dataPreprocessor: any DataPreprocessor
    /// The status codes for which an empty body is a success.
    public let emptyResponseCodes: Set<Int>
    /// The request methods for which an empty body is a success.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged; use
    ///     ``GoogleXSSIPreprocessor`` for XSSI-guarded JSON).
    ///   - emptyResponseCodes: Where an empty body is ``JSON/null`` (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is ``JSON/null`` (default: `HEAD`).
    public init(
        dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// Returns the body parsed as JSON.
    ///
    /// - Parameters:
    ///   - request: The request as sent.
    ///   - response: The server's response.
    ///   - data: The body.
    ///   - error: A failure so far, thrown unchanged.
    /// - Returns: The JSON value, ``JSON/null`` for an allowed empty body.
    /// - Throws: `error`, or an ``HTTPError`` for a disallowed empty body or invalid JSON.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> JSON {
        try serialize(request: request, head: response.map(ResponseHead.init), data: data, error: error)
    }

    /// The same from the response's head (the session's call: no response is made).
    public func serialize(request: URLRequest?, head: ResponseHead?, data: Data?, error: HTTPError?) throws -> JSON {
        guard let body = try preparedBody(request: request, head: head, data: data, error: error) else {
            return .emptyValue()
        }
        do {
            return try JSON(parsing: body)
        } catch {
            throw HTTPError.responseSerializationFailed(reason: .jsonSyntax(error))
        }
    }
}
