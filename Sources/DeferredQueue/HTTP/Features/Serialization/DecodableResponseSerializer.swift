import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decodes the body as `T` with a ``DataDecoder``: the serializer behind
/// `responseDecodable` and `serializingDecodable`.
///
/// ```swift
/// let serializer = DecodableResponseSerializer<Settings>(decoder: PropertyListDecoder())
/// let settings = try await request(url).serializingResponse(using: serializer).value.result.get()
/// ```
///
/// An empty body:
/// - for `T` == ``Empty``, is ``Empty/value`` whatever the status: asking for `Empty`
///   says the body does not matter;
/// - where an empty body is allowed (204, 205 and `HEAD` by default), is
///   `T.emptyValue()` when `T` conforms to ``EmptyResponse`` (such as ``JSON``), and
///   fails with ``HTTPError/SerializationFailureReason/invalidEmptyResponse(type:)`` for
///   another `T`;
/// - elsewhere fails with
///   ``HTTPError/SerializationFailureReason/inputDataNilOrZeroLength(serializer:)``.
/// Decode `T?` to accept the body `null`.
public struct DecodableResponseSerializer<T: Decodable & Sendable>: ResponseSerializer {
    /// Runs on the body before it is decoded.
    public let dataPreprocessor: any DataPreprocessor
    /// Decodes the body.
    public let decoder: any DataDecoder
    /// The status codes for which an empty body is allowed.
    public let emptyResponseCodes: Set<Int>
    /// The request methods for which an empty body is allowed.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - decoder: Decodes the body (default: a new `JSONDecoder`).
    ///   - emptyResponseCodes: Where an empty body is allowed (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is allowed (default: `HEAD`).
    public init(
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.decoder = decoder
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// Returns the body decoded as `T`.
    ///
    /// - Parameters:
    ///   - request: The request as sent.
    ///   - response: The server's response.
    ///   - data: The body.
    ///   - error: A failure so far, thrown unchanged.
    /// - Returns: The decoded value, or `T.emptyValue()` for an empty body (see above).
    /// - Throws: `error`, or an ``HTTPError``: an empty body `T` cannot stand for, or
    ///   ``HTTPError/SerializationFailureReason/decodingFailed(error:)``.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> T {
        try serialize(request: request, head: response.map(ResponseHead.init), data: data, error: error)
    }

    /// The same from the response's head (the session's call: no response is made).
    public func serialize(request: URLRequest?, head: ResponseHead?, data: Data?, error: HTTPError?) throws -> T {
        // Asking for `Empty` says the body does not matter: no body is fine whatever the status.
        if error == nil, data?.isEmpty ?? true, let empty = Empty.value as? T {
            return empty
        }
        guard let body = try preparedBody(request: request, head: head, data: data, error: error) else {
            guard let emptyType = T.self as? any EmptyResponse.Type, let value = emptyType.emptyValue() as? T else {
                throw HTTPError.responseSerializationFailed(reason: .invalidEmptyResponse(type: "\(T.self)"))
            }
            return value
        }
        do {
            return try decoder.decode(T.self, from: body)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError.responseSerializationFailed(reason: .decodingFailed(error: error))
        }
    }
}
