import Dispatch
import Foundation

// Response handlers. Each is enqueued on the request's suspended queue when
// called; serialization runs there, and the completion handler is dispatched
// to `queue` (default `.main`).

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
        completionHandler: @escaping @Sendable (DataResponse<Data?>) -> Void
    ) -> Self {
        deliver(on: queue, { .success($0.data) }, completionHandler)
    }

    /// Adds a handler that receives the body as `Data`.
    ///
    /// An empty body is a success for 204, 205 and `HEAD`, and
    /// ``HTTPError/SerializationFailureReason/inputDataNilOrZeroLength`` otherwise.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseData(
        queue: DispatchQueue = .main,
        completionHandler: @escaping @Sendable (DataResponse<Data>) -> Void
    ) -> Self {
        deliver(on: queue, ResponseSerializers.data, completionHandler)
    }

    /// Adds a handler that receives the body as text.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - encoding: Overrides the charset; when `nil`, the response's
    ///     `Content-Type` charset is used, else UTF-8, else Latin-1.
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseString(
        queue: DispatchQueue = .main,
        encoding: String.Encoding? = nil,
        completionHandler: @escaping @Sendable (DataResponse<String>) -> Void
    ) -> Self {
        deliver(on: queue, { ResponseSerializers.string($0, encoding: encoding) }, completionHandler)
    }

    /// Adds a handler that receives the body parsed as ``JSON``.
    ///
    /// An empty body (even for 204) is a serialization error; the body `null`
    /// is ``JSON/null``.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseJSON(
        queue: DispatchQueue = .main,
        completionHandler: @escaping @Sendable (DataResponse<JSON>) -> Void
    ) -> Self {
        deliver(on: queue, ResponseSerializers.json, completionHandler)
    }

    /// Adds a handler that receives the body decoded as `T`.
    ///
    /// Decode `T?` to accept a `null` body. An empty body is a serialization
    /// error.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - decoder: The decoder to use.
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self,
        queue: DispatchQueue = .main,
        decoder: JSONDecoder = JSONDecoder(),
        completionHandler: @escaping @Sendable (DataResponse<T>) -> Void
    ) -> Self {
        deliver(on: queue, { ResponseSerializers.decodable($0, as: T.self, decoder: decoder) }, completionHandler)
    }

    // MARK: - Delivery

    /// Enqueues one handler: when the outcome is there, applies the validation
    /// verdict so far and `serialize`, then calls `handler` on `queue` (or
    /// right there on the request's queue when `queue` is `nil`). Starts the
    /// request if it has not started.
    ///
    /// The block captures only small values, never the request, so a running
    /// request's lifetime stays the session's business.
    func deliver<Value: Sendable>(
        on queue: DispatchQueue?,
        _ serialize: @escaping @Sendable (RawResponse) -> Result<Value, HTTPError>,
        _ handler: @escaping @Sendable (DataResponse<Value>) -> Void
    ) -> Self {
        let urlRequest = self.urlRequest
        let start = self.start
        enqueueHandler { outcome in
            let response: DataResponse<Value>
            switch outcome {
            case .success(let raw):
                let result = raw.error.map { .failure($0) } ?? serialize(raw)
                response = DataResponse(
                    request: raw.request, response: raw.response, data: raw.data, result: result,
                    timing: ResponseTiming(start: start, end: raw.end)
                )
            case .failure(let error):
                // Cancelled (or, defensively, abandoned) before completion.
                let failure: HTTPError = (error as? DeferredError)?.isCancelled == true ? .cancelled : .abandoned
                response = DataResponse(
                    request: urlRequest, response: nil, data: nil, result: .failure(failure),
                    timing: ResponseTiming(start: start, end: Date())
                )
            }
            guard let queue else { return handler(response) }
            queue.async { handler(response) }
        }
        return self
    }
}
