import Foundation

/// A request whose response a ``ResponseSerializer`` turns into a value, as
/// a ``Deferred``: ``DataRequest`` (its body) and ``DownloadRequest`` (its
/// file's contents). The `serializing…` conveniences are written once, here.
///
/// ```swift
/// let entry = try await request(url).validate().serializingDecodable(Entry.self).value
/// ```
///
/// Serialization runs on the request's queue; the deferred is settled there,
/// and its handlers without `on:` run on that queue too, in turn with the
/// request's own handlers — so such a handler must not block waiting for a
/// handler of the same request (pass `on:` a queue of yours to block).
/// Cancelling the deferred cancels the request. So does cancelling a Task
/// awaiting its `value` or `result`, unless the bridge was made with
/// `automaticallyCancelling: false` (as in Alamofire): then the awaiter
/// keeps waiting and receives the request's real outcome.
public protocol SerializingRequest: Request {
    /// The value `serializer` makes, as a deferred rejected with the
    /// ``HTTPError`` on failure.
    ///
    /// - Parameters:
    ///   - serializer: Turns the response into the value.
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the
    ///     deferred cancels the request (`true`) or leaves it running.
    /// - Returns: A deferred fulfilled with the value.
    func serializing<Serializer: ResponseSerializer>(
        _ serializer: Serializer, automaticallyCancelling: Bool
    ) -> Deferred<Serializer.SerializedObject>
}

extension Request {
    /// A `serializing…` bridge: a deferred whose queue targets the request's
    /// handler queue, settled by the handler `addHandler` adds with its
    /// resolver; cancelling it cancels the request.
    ///
    /// The cancel hook holds a request that runs, ran, or starts with that
    /// handler strongly: the handler settles the deferred, which drops the
    /// hook, and the session's registry keeps a running request alive until
    /// then anyway. It holds a request waiting for `resume()` weakly, as a
    /// handler does: a bridge must not keep it. (A weak reference gives the
    /// request a side table, through which every later retain and release
    /// of it goes: hence only where needed.)
    func bridge<Value: Sendable>(
        automaticallyCancelling: Bool, _ addHandler: (Resolver<Value>) -> Void
    ) -> Deferred<Value> {
        let (deferred, resolver) = Deferred<Value>.pending(
            targeting: outcome.queue, awaiterCancellationCancels: automaticallyCancelling
        )
        addHandler(resolver)
        // After the handler: adding it may have started the request. Nobody
        // else holds the deferred yet, so it cannot have been cancelled meanwhile.
        if mutableState.withLock(owner: self, { $0.startsWithHandlerOrStarted }) {
            resolver.onCancel { self.cancel() }
        } else {
            resolver.onCancel { [weak self] in self?.cancel() }
        }
        return deferred
    }
}

extension SerializingRequest {
    /// The value `serializer` makes, as a deferred rejected with the
    /// ``HTTPError`` on failure; cancelling a Task awaiting it cancels the
    /// request.
    ///
    /// - Parameter serializer: Turns the response into the value.
    /// - Returns: A deferred fulfilled with the value.
    public func serializing<Serializer: ResponseSerializer>(
        _ serializer: Serializer
    ) -> Deferred<Serializer.SerializedObject> {
        serializing(serializer, automaticallyCancelling: true)
    }

    /// The body (a download's file) as `Data`, as a deferred. See ``DataResponseSerializer``.
    ///
    /// - Parameters:
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the deferred cancels the request (default: `true`).
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - emptyResponseCodes: Where an empty body is a success (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is a success (default: `HEAD`).
    /// - Returns: A deferred fulfilled with the body or rejected with an ``HTTPError``.
    public func serializingData(
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> Deferred<Data> {
        serializing(DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }

    /// The body (a download's file) as text, as a deferred. See ``StringResponseSerializer``.
    ///
    /// - Parameters:
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the deferred cancels the request (default: `true`).
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - encoding: Overrides the response's charset.
    ///   - emptyResponseCodes: Where an empty body is `""` (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is `""` (default: `HEAD`).
    /// - Returns: A deferred fulfilled with the text or rejected with an ``HTTPError``.
    public func serializingString(
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> Deferred<String> {
        serializing(StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }

    /// The body (a download's file) as ``JSON``, as a deferred. See ``JSONResponseSerializer``.
    ///
    /// - Parameters:
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the deferred cancels the request (default: `true`).
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - emptyResponseCodes: Where an empty body is ``JSON/null`` (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is ``JSON/null`` (default: `HEAD`).
    /// - Returns: A deferred fulfilled with the JSON or rejected with an ``HTTPError``.
    public func serializingJSON(
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods
    ) -> Deferred<JSON> {
        serializing(JSONResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }

    /// The body (a download's file) decoded as `T`, as a deferred. See ``DecodableResponseSerializer``.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the deferred cancels the request (default: `true`).
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - decoder: Decodes the body (default: a new `JSONDecoder`).
    ///   - emptyResponseCodes: Where an empty body is allowed (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is allowed (default: `HEAD`).
    /// - Returns: A deferred fulfilled with the value or rejected with an ``HTTPError``.
    public func serializingDecodable<T: Decodable & Sendable>(
        _ type: T.Type = T.self,
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> Deferred<T> {
        serializing(DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }
}
