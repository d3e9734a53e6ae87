import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Serializes the body as `Data`: the serializer behind `responseData` and
/// `serializingData`.
///
/// An empty body is `Data()` where it is allowed (204, 205 and `HEAD` by default) and
/// ``HTTPError/SerializationFailureReason/inputDataNilOrZeroLength(serializer:)``
/// elsewhere: an empty `200` is not the data the caller asked for.
public struct DataResponseSerializer: ResponseSerializer {
    /// Runs on the body before it is returned.
    public let dataPreprocessor: any DataPreprocessor
    /// The status codes for which an empty body is a success.
    public let emptyResponseCodes: Set<Int>
    /// The request methods for which an empty body is a success.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - emptyResponseCodes: Where an empty body is a success (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is a success (default: `HEAD`).
    public init(
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// Returns the preprocessed body.
    ///
    /// - Parameters:
    ///   - request: The request as sent.
    ///   - response: The server's response.
    ///   - data: The body.
    ///   - error: A failure so far, thrown unchanged.
    /// - Returns: The body, or `Data()` for an allowed empty body.
    /// - Throws: `error`, or an ``HTTPError`` for a disallowed empty body.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> Data {
        try serialize(request: request, head: response.map(ResponseHead.init), data: data, error: error)
    }

    /// The same from the response's head (the session's call: no response is made).
    public func serialize(request: URLRequest?, head: ResponseHead?, data: Data?, error: HTTPError?) throws -> Data {
        try preparedBody(request: request, head: head, data: data, error: error) ?? Data()
    }
}
