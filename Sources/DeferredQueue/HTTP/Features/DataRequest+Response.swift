import Dispatch
import Foundation

// Response handlers. Each is enqueued on the request's suspended queue when
// called; serialization runs there, and the completion handler is dispatched
// to `queue` (default `.main`). The serializers themselves live in
// Serialization/.

extension DataRequest {
    /// Adds a handler that receives the raw body, unserialized.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - completionHandler: Receives the response; its result is the body
    ///     (`nil` when none arrived) or the failure.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func response(
        queue: DispatchQueue = .main,
        completionHandler: @escaping @Sendable (DataResponse<Data?, HTTPError>) -> Void
    ) -> Self {
        // Not a serializer: as in Alamofire, its outcome is never put to the retriers.
        deliver(on: queue, retryable: false, RawBodySerializer(), completionHandler)
    }

    /// Adds a handler whose value is made by `responseSerializer`.
    ///
    /// The serializer also receives a transport failure or the failure of a
    /// `validate(…)` chained before this handler, and may turn it into a value; the
    /// library's serializers throw it on. It is not called for a cancelled request.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - responseSerializer: Turns the response into the value.
    ///   - completionHandler: Receives the response; a non-``HTTPError`` thrown by the
    ///     serializer arrives as
    ///     ``HTTPError/SerializationFailureReason/customSerializationFailed(error:)``.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func response<Serializer: DataResponseSerializerProtocol>(
        queue: DispatchQueue = .main,
        responseSerializer: Serializer,
        completionHandler: @escaping @Sendable (DataResponse<Serializer.SerializedObject, HTTPError>) -> Void
    ) -> Self {
        deliver(on: queue, responseSerializer, completionHandler)
    }

    /// Adds a handler that receives the body as `Data` (see ``DataResponseSerializer``).
    ///
    /// An empty body is a success for 204, 205 and `HEAD`, and
    /// ``HTTPError/SerializationFailureReason/inputDataNilOrZeroLength(serializer:)`` otherwise.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - emptyResponseCodes: Where an empty body is a success (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is a success (default: `HEAD`).
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseData(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (DataResponse<Data, HTTPError>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// Adds a handler that receives the body as text (see ``StringResponseSerializer``).
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - encoding: Overrides the charset; when `nil`, the response's
    ///     `Content-Type` charset is used, else UTF-8, else Latin-1.
    ///   - emptyResponseCodes: Where an empty body is `""` (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is `""` (default: `HEAD`).
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseString(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (DataResponse<String, HTTPError>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// Adds a handler that receives the body parsed as ``JSON`` (see
    /// ``JSONResponseSerializer``).
    ///
    /// The body `null` is ``JSON/null``, and so is an empty body for 204, 205 and
    /// `HEAD`; an empty body elsewhere is a serialization error.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - emptyResponseCodes: Where an empty body is ``JSON/null`` (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is ``JSON/null`` (default: `HEAD`).
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseJSON(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (DataResponse<JSON, HTTPError>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: JSONResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// Adds a handler that receives the body decoded as `T` (see
    /// ``DecodableResponseSerializer``).
    ///
    /// Decode `T?` to accept a `null` body, and ``Empty`` when only success matters.
    /// An empty body is `T.emptyValue()` for 204, 205 and `HEAD` when `T` is an
    /// ``EmptyResponse``, and a serialization error otherwise.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - decoder: Decodes the body (default: a new `JSONDecoder`).
    ///   - emptyResponseCodes: Where an empty body is allowed (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is allowed (default: `HEAD`).
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self,
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (DataResponse<T, HTTPError>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    // MARK: - Delivery

    /// Enqueues one handler: when the outcome is there, `serializer` runs on
    /// it (also on a transfer that failed or a response that validation
    /// rejected, with that failure as its `error`: the serializer contract),
    /// then `handler` on `queue`, or right there on the request's queue when
    /// `queue` is `nil`. A cancelled or abandoned request skips `serializer`.
    /// Starts the request if it has not started. `retryable`: a failure of
    /// `serializer` is put to the retriers.
    func deliver<Serializer: DataResponseSerializerProtocol>(
        on queue: DispatchQueue?,
        retryable: Bool = true,
        _ serializer: Serializer,
        _ handler: @escaping @Sendable (DataResponse<Serializer.SerializedObject, HTTPError>) -> Void
    ) -> Self {
        enqueueRetryableOutcome(on: queue, retryable: retryable, DataResponder(serializer: serializer, start: start, monitor: eventMonitor), handler)
        return self
    }
}
