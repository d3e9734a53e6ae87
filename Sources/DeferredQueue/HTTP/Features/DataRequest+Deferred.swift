import Foundation

// Bridges from a request to `Deferred` (and so to async/await):
//
//     let entry = try await request(url).validate().serializingDecodable(Entry.self).value
//
// Serialization runs on the request's queue; the deferred is settled there.
// Cancelling the deferred — or the Task awaiting its `value` — cancels the
// request and its URLSessionTask.

extension DataRequest {
    /// The body as `Data`, as a deferred. See ``responseData(queue:completionHandler:)``.
    public func serializingData() -> Deferred<Data> {
        serializing(ResponseSerializers.data)
    }

    /// The body as text, as a deferred. See ``responseString(queue:encoding:completionHandler:)``.
    ///
    /// - Parameter encoding: Overrides the response's charset.
    public func serializingString(encoding: String.Encoding? = nil) -> Deferred<String> {
        serializing { ResponseSerializers.string($0, encoding: encoding) }
    }

    /// The body as ``JSON``, as a deferred. See ``responseJSON(queue:completionHandler:)``.
    public func serializingJSON() -> Deferred<JSON> {
        serializing(ResponseSerializers.json)
    }

    /// The body decoded as `T`, as a deferred.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    public func serializingDecodable<T: Decodable & Sendable>(
        _ type: T.Type = T.self,
        decoder: JSONDecoder = JSONDecoder()
    ) -> Deferred<T> {
        serializing { ResponseSerializers.decodable($0, as: T.self, decoder: decoder) }
    }

    /// The request's whole response, as a deferred that is always fulfilled
    /// (the failure is inside the response).
    public func serializingResponse() -> Deferred<DataResponse<Data?>> {
        let (deferred, resolver) = Deferred<DataResponse<Data?>>.pending()
        resolver.onCancel { [weak self] in self?.cancel() }
        _ = deliver(on: nil, { .success($0.data) }) { resolver.fulfill($0) }
        return deferred
    }

    private func serializing<Value: Sendable>(
        _ serialize: @escaping @Sendable (RawResponse) -> Result<Value, HTTPError>
    ) -> Deferred<Value> {
        let (deferred, resolver) = Deferred<Value>.pending()
        resolver.onCancel { [weak self] in self?.cancel() }
        _ = deliver(on: nil, serialize) { response in
            resolver.resolve(response.result.mapError { $0 })
        }
        return deferred
    }
}
