import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a finished response into the value a handler asked for.
///
/// The library's own serializers — ``DataResponseSerializer``,
/// ``StringResponseSerializer``, ``JSONResponseSerializer`` and
/// ``DecodableResponseSerializer`` — are the ones behind `responseData`,
/// `responseString`, `responseJSON` and `responseDecodable`. Write your own and
/// pass it to ``DataRequest/response(queue:responseSerializer:completionHandler:)``
/// or ``DataRequest/serializingResponse(using:automaticallyCancelling:)->Deferred<DataResponse<Serializer.SerializedObject,HTTPError>>``:
///
/// ```swift
/// struct LinesSerializer: ResponseSerializer {
///     func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?,
///                    error: HTTPError?) throws -> [String] {
///         let text = try StringResponseSerializer()
///             .serialize(request: request, response: response, data: data, error: error)
///         return text.split(separator: "\n").map(String.init)
///     }
/// }
/// ```
///
/// `serialize` runs on the request's serial queue, once per handler, after the
/// validators chained before the handler. It is not called for a request that was
/// cancelled or abandoned: those handlers receive ``HTTPError/cancelled`` or
/// ``HTTPError/abandoned`` directly.
///
/// A thrown ``HTTPError`` reaches the handler as is; any other error as
/// ``HTTPError/SerializationFailureReason/customSerializationFailed(error:)``.
///
/// Every response serializer also serializes downloads
/// (``DownloadResponseSerializerProtocol``, by reading the file).
public protocol ResponseSerializer<SerializedObject>: DataResponseSerializerProtocol & DownloadResponseSerializerProtocol {
    /// Prepares the body before it is serialized (default: ``PassthroughPreprocessor``).
    var dataPreprocessor: any DataPreprocessor { get }

    /// The status codes for which an empty body is a success (default: 204, 205).
    var emptyResponseCodes: Set<Int> { get }

    /// The request methods for which an empty body is a success (default: `HEAD`).
    var emptyRequestMethods: Set<HTTPMethod> { get }
}

/// Turns a response with its body in memory into a value (Alamofire's
/// protocol, with ``HTTPError`` in place of `any Error`). Every
/// ``ResponseSerializer`` is one.
public protocol DataResponseSerializerProtocol<SerializedObject>: Sendable {
    /// The value this serializer produces.
    associatedtype SerializedObject: Sendable

    /// Transforms the bytes that came back into ``SerializedObject``.
    ///
    /// - Parameters:
    ///   - request: The request as last sent (after redirects), if one was built.
    ///   - response: The server's response, or `nil` when none arrived.
    ///   - data: The body, or `nil` when no response arrived.
    ///   - error: The transport failure, or the failure a `validate(…)` chained before
    ///     this handler recorded; `nil` when the response arrived and passed validation.
    ///     The library's serializers throw it unchanged, and so should yours unless you
    ///     mean to turn a failure into a value.
    /// - Returns: The serialized value.
    /// - Throws: `error` when it is given, otherwise whatever keeps the body from becoming
    ///   a ``SerializedObject``, preferably an ``HTTPError``.
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> SerializedObject

    /// The same from the response's head: what the session calls. A
    /// serializer that reads only the status and fields implements it, so
    /// that no `HTTPURLResponse` is made for it (on AsyncHTTPClient that is
    /// most of a small request's cost); by default it calls
    /// ``serialize(request:response:data:error:)`` with the head's response.
    func serialize(request: URLRequest?, head: ResponseHead?, data: Data?, error: HTTPError?) throws -> SerializedObject
}

extension DataResponseSerializerProtocol {
    /// Calls ``serialize(request:response:data:error:)`` with `head`'s
    /// response, made now.
    public func serialize(request: URLRequest?, head: ResponseHead?, data: Data?, error: HTTPError?) throws -> SerializedObject {
        try serialize(request: request, response: head?.response, data: data, error: error)
    }
}

// The defaults, built once: they are default arguments of every `response…`
// call, and a set literal would be allocated and hashed per request.
private let sharedEmptyResponseCodes: Set<Int> = [204, 205]
private let sharedEmptyRequestMethods: Set<HTTPMethod> = [.head]

extension ResponseSerializer {
    /// ``PassthroughPreprocessor``: the body as received.
    public static var defaultDataPreprocessor: any DataPreprocessor {
        PassthroughPreprocessor()
    }

    /// 204 No Content and 205 Reset Content.
    public static var defaultEmptyResponseCodes: Set<Int> {
        sharedEmptyResponseCodes
    }

    /// `HEAD`, whose answers never have a body.
    public static var defaultEmptyRequestMethods: Set<HTTPMethod> {
        sharedEmptyRequestMethods
    }

    /// ``defaultDataPreprocessor``.
    public var dataPreprocessor: any DataPreprocessor {
        Self.defaultDataPreprocessor
    }

    /// ``defaultEmptyResponseCodes``.
    public var emptyResponseCodes: Set<Int> {
        Self.defaultEmptyResponseCodes
    }

    /// ``defaultEmptyRequestMethods``.
    public var emptyRequestMethods: Set<HTTPMethod> {
        Self.defaultEmptyRequestMethods
    }

    /// Whether `request`'s method allows an empty body (it is in
    /// ``emptyRequestMethods``); `nil` without a request or a method.
    public func requestAllowsEmptyResponseData(_ request: URLRequest?) -> Bool? {
        request?.httpMethod.map { emptyRequestMethods.contains(HTTPMethod(rawValue: $0)) }
    }

    /// Whether `response`'s status code allows an empty body (it is in
    /// ``emptyResponseCodes``); `nil` without a response.
    public func responseAllowsEmptyResponseData(_ response: HTTPURLResponse?) -> Bool? {
        response.map { emptyResponseCodes.contains($0.statusCode) }
    }

    /// Whether an empty body is an acceptable answer to this request: its method is in
    /// ``emptyRequestMethods`` or the response's status code is in ``emptyResponseCodes``.
    ///
    /// - Parameters:
    ///   - request: The request as sent.
    ///   - response: The server's response.
    /// - Returns: `true` when an empty body is a success rather than an error.
    public func emptyResponseAllowed(forRequest request: URLRequest?, response: HTTPURLResponse?) -> Bool {
        emptyResponseAllowed(forRequest: request, statusCode: response?.statusCode)
    }

    func emptyResponseAllowed(forRequest request: URLRequest?, statusCode: Int?) -> Bool {
        if let method = request?.httpMethod, emptyRequestMethods.contains(HTTPMethod(rawValue: method)) {
            return true
        }
        if let statusCode, emptyResponseCodes.contains(statusCode) {
            return true
        }
        return false
    }

    /// The common first steps of the library's serializers: throws `error` when given;
    /// for an empty body returns `nil` where ``emptyResponseAllowed(forRequest:response:)``
    /// and throws ``HTTPError/SerializationFailureReason/inputDataNilOrZeroLength(serializer:)``
    /// elsewhere; otherwise returns the body run through ``dataPreprocessor``.
    func preparedBody(request: URLRequest?, head: ResponseHead?, data: Data?, error: HTTPError?) throws -> Data? {
        if let error { throw error }
        guard let data, !data.isEmpty else {
            guard emptyResponseAllowed(forRequest: request, statusCode: head?.statusCode) else {
                throw HTTPError.responseSerializationFailed(reason: .inputDataNilOrZeroLength(serializer: "\(Self.self)"))
            }
            return nil
        }
        return try dataPreprocessor.preprocess(data)
    }

}

extension DataResponseSerializerProtocol {
    /// Runs the serializer on a finished transfer; a thrown error that is not an
    /// ``HTTPError`` becomes ``HTTPError/SerializationFailureReason/customSerializationFailed(error:)``.
    func result(for raw: RawResponse) -> Result<SerializedObject, HTTPError> {
        do {
            return .success(try serialize(request: raw.request, head: raw.head, data: raw.data, error: raw.error))
        } catch let error as HTTPError {
            return .failure(error)
        } catch {
            return .failure(.responseSerializationFailed(reason: .customSerializationFailed(error: error)))
        }
    }
}

