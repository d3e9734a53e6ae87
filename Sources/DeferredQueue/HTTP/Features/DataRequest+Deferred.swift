import Foundation

// Bridges from a request to `Deferred` (and so to async/await):
//
//     let entry = try await request(url).validate().serializingDecodable(Entry.self).value
//
// Serialization runs on the request's queue; the deferred is settled there,
// and its own queue targets that one, so what waits on it (an awaiting Task's
// continuation, a `then` without `on:`) runs right behind on the same thread
// rather than waking another. Cancelling the deferred cancels the request;
// so does cancelling a Task awaiting it, unless `automaticallyCancelling` is
// `false` (see SerializingRequest).

extension DataRequest: SerializingRequest {
    /// The request's whole response, as a deferred fulfilled with it (the
    /// failure is inside the response) — unless the deferred itself is
    /// cancelled, which rejects it with ``DeferredError/cancelled``.
    ///
    /// - Parameter automaticallyCancelling: Whether cancelling a Task awaiting
    ///   the deferred cancels the request (default: `true`).
    /// - Returns: A deferred fulfilled with the response and its raw body.
    public func serializingResponse(automaticallyCancelling: Bool = true) -> Deferred<DataResponse<Data?, HTTPError>> {
        bridge(automaticallyCancelling: automaticallyCancelling) { resolver in
            _ = deliver(on: nil, RawBodySerializer()) { resolver.fulfill($0) }
        }
    }

    /// The whole response with its value made by `serializer`, as a deferred
    /// fulfilled with it: the failure is inside the response, next to the
    /// status, headers and timing. Cancelling the deferred itself rejects it
    /// with ``DeferredError/cancelled`` (and cancels the request).
    ///
    /// ```swift
    /// let response = await request(url).serializingResponse(using: JSONResponseSerializer()).result
    /// ```
    ///
    /// - Parameters:
    ///   - serializer: Turns the response into the value; see
    ///     ``response(queue:responseSerializer:completionHandler:)`` for what it receives.
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the
    ///     deferred cancels the request (default: `true`).
    /// - Returns: A deferred fulfilled with the response.
    public func serializingResponse<Serializer: DataResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling: Bool = true
    ) -> Deferred<DataResponse<Serializer.SerializedObject, HTTPError>> {
        bridge(automaticallyCancelling: automaticallyCancelling) { resolver in
            _ = deliver(on: nil, serializer) { resolver.fulfill($0) }
        }
    }

    // Specialised here for the library's serializers: `serializingData()`
    // and its siblings reach this method through the protocol's witness,
    // which would otherwise run the generic body, with run-time metadata
    // lookups, on every awaited request.

    /// The value `serializer` makes from the body, as a deferred rejected
    /// with the ``HTTPError`` on failure.
    ///
    /// - Parameters:
    ///   - serializer: Turns the response into the value.
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the
    ///     deferred cancels the request.
    /// - Returns: A deferred fulfilled with the value.
    @_specialize(where Serializer == DataResponseSerializer)
    @_specialize(where Serializer == StringResponseSerializer)
    @_specialize(where Serializer == JSONResponseSerializer)
    public func serializing<Serializer: ResponseSerializer>(
        _ serializer: Serializer, automaticallyCancelling: Bool
    ) -> Deferred<Serializer.SerializedObject> {
        bridge(automaticallyCancelling: automaticallyCancelling) { resolver in
            _ = deliver(on: nil, serializer) { response in
                resolver.resolve(response.result.mapError { $0 })
            }
        }
    }
}
