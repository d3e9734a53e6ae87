import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A download's handlers: enqueued on its suspended queue like a data
// request's; the serializers read the finished file (on the request's queue).

extension DownloadRequest {
    /// Adds a handler that receives the raw outcome: the file's URL when the
    /// download succeeded (`nil` when there is none), or its failure, as
    /// Alamofire's `response(queue:completionHandler:)`.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func response(
        queue: DispatchQueue = .main,
        completionHandler: @escaping @Sendable (DownloadResponse<URL?, HTTPError>) -> Void
    ) -> Self {
        // Not a serializer: as in Alamofire, its outcome is never put to the retriers.
        deliver(on: queue, retryable: false, RawFileURLSerializer(), completionHandler)
    }

    /// Adds a handler that receives where the downloaded file is.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - completionHandler: Receives the response; its value is the file's URL.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func responseURL(
        queue: DispatchQueue = .main,
        completionHandler: @escaping @Sendable (DownloadResponse<URL, HTTPError>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: URLResponseSerializer(), completionHandler: completionHandler)
    }

    /// Adds a handler whose value `responseSerializer` makes from the file's contents.
    ///
    /// - Parameters:
    ///   - queue: Where `completionHandler` runs (default `.main`).
    ///   - responseSerializer: Turns the response and the file's bytes into the value.
    ///   - completionHandler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func response<Serializer: DownloadResponseSerializerProtocol>(
        queue: DispatchQueue = .main,
        responseSerializer: Serializer,
        completionHandler: @escaping @Sendable (DownloadResponse<Serializer.SerializedObject, HTTPError>) -> Void
    ) -> Self {
        deliver(on: queue, responseSerializer, completionHandler)
    }

    /// Adds a handler that receives the file's contents as `Data` (see
    /// ``DataResponseSerializer``; the options as for
    /// ``DataRequest/responseData(queue:dataPreprocessor:emptyResponseCodes:emptyRequestMethods:completionHandler:)``).
    @discardableResult
    public func responseData(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (DownloadResponse<Data, HTTPError>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// Adds a handler that receives the file's contents as text (see
    /// ``StringResponseSerializer``).
    @discardableResult
    public func responseString(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (DownloadResponse<String, HTTPError>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// Adds a handler that receives the file's contents parsed as ``JSON``
    /// (see ``JSONResponseSerializer``).
    @discardableResult
    public func responseJSON(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (DownloadResponse<JSON, HTTPError>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: JSONResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// Adds a handler that receives the file's contents decoded as `T` (see
    /// ``DecodableResponseSerializer``).
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self,
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (DownloadResponse<T, HTTPError>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// Enqueues one handler (see `DataRequest.deliver(on:retryable:_:_:)`),
    /// run on `queue`, or on the request's queue when `nil`. A serializer's
    /// failure may retry the download, as a data request's (its earlier
    /// file stays where it was moved).
    func deliver<Serializer: DownloadResponseSerializerProtocol>(
        on queue: DispatchQueue?,
        retryable: Bool = true,
        _ serializer: Serializer,
        _ handler: @escaping @Sendable (DownloadResponse<Serializer.SerializedObject, HTTPError>) -> Void
    ) -> Self {
        enqueueRetryableOutcome(on: queue, retryable: retryable, DownloadResponder(serializer: serializer, start: start, monitor: eventMonitor), handler)
        return self
    }
}
