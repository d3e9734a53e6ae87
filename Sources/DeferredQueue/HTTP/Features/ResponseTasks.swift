import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Alamofire's `DataTask` and `DownloadTask`: what its `serializing…` methods
// return, awaited for the whole `response` (or `result`, `value`). Here the
// `serializing…` methods return a `Deferred`, which chains and combines; the
// overloads below, disfavoured, return these tasks instead wherever only a
// task type-checks, so Alamofire's
//
//     let response = await request(url).serializingDecodable(Entry.self).response
//
// compiles and behaves as in Alamofire. A task held in a variable must name
// its type (`let task: DataTask<Entry> = …`): without one, the deferred wins.

/// A ``DataRequest``'s response, awaited: Alamofire's `DataTask`.
///
/// ```swift
/// import DeferredQueue
///
/// struct Entry: Decodable, Sendable { let title: String }
///
/// func fetch(_ url: URL) async -> DataResponse<Entry, HTTPError> {
///     await request(url).validate().serializingDecodable(Entry.self).response
/// }
/// ```
///
/// With `automaticallyCancelling` (the default), cancelling the Task that
/// awaits ``response``, ``result`` or ``value`` cancels the request, and the
/// response then carries ``HTTPError/cancelled`` (Alamofire's
/// `explicitlyCancelled`). Every awaiter receives the same response.
public struct DataTask<Value: Sendable>: Sendable {
    private let awaited: AwaitedResponse<DataResponse<Value, HTTPError>>

    init(request: DataRequest, response: Deferred<DataResponse<Value, HTTPError>>, automaticallyCancelling: Bool) {
        awaited = AwaitedResponse(request: request, response: response, automaticallyCancelling: automaticallyCancelling)
    }

    /// The whole response: request, status, headers, body, timing and the serialized value or error.
    public var response: DataResponse<Value, HTTPError> {
        get async { await awaited.value }
    }

    /// The serialized value or the error.
    public var result: Result<Value, HTTPError> {
        get async { await response.result }
    }

    /// The serialized value; throws the ``HTTPError``.
    public var value: Value {
        get async throws { try await result.get() }
    }

    /// Cancels the request.
    public func cancel() { awaited.request.cancel() }
    /// Starts the request, or lets it go on after ``suspend()``.
    public func resume() { awaited.request.resume() }
    /// Suspends the request (see ``Request/suspend()``).
    public func suspend() { awaited.request.suspend() }
}

/// A ``DownloadRequest``'s response, awaited: Alamofire's `DownloadTask`.
/// As ``DataTask``, with the file's URL and resume data in the response.
public struct DownloadTask<Value: Sendable>: Sendable {
    private let awaited: AwaitedResponse<DownloadResponse<Value, HTTPError>>

    init(request: DownloadRequest, response: Deferred<DownloadResponse<Value, HTTPError>>, automaticallyCancelling: Bool) {
        awaited = AwaitedResponse(request: request, response: response, automaticallyCancelling: automaticallyCancelling)
    }

    /// The whole response: request, status, headers, file, resume data, timing and the serialized value or error.
    public var response: DownloadResponse<Value, HTTPError> {
        get async { await awaited.value }
    }

    /// The serialized value or the error.
    public var result: Result<Value, HTTPError> {
        get async { await response.result }
    }

    /// The serialized value; throws the ``HTTPError``.
    public var value: Value {
        get async throws { try await result.get() }
    }

    /// Cancels the download, without resume data (as Alamofire's): for
    /// resume data, call `cancel(producingResumeData: true)` on the request.
    public func cancel() { awaited.request.cancel() }
    /// Starts the download, or lets it go on after ``suspend()``.
    public func resume() { awaited.request.resume() }
    /// Suspends the download (see ``Request/suspend()``).
    public func suspend() { awaited.request.suspend() }
}

/// A response that stands for a request that never delivered one.
protocol FailedResponse: Sendable {
    init(failing request: URLRequest?, with error: HTTPError)
}

extension DataResponse: FailedResponse where Failure == HTTPError {
    init(failing request: URLRequest?, with error: HTTPError) {
        let now = Date()
        self.init(request: request, head: nil, data: nil, result: .failure(error), timing: ResponseTiming(start: now, end: now))
    }
}

extension DownloadResponse: FailedResponse where Failure == HTTPError {
    init(failing request: URLRequest?, with error: HTTPError) {
        let now = Date()
        self.init(
            request: request, head: nil, fileURL: nil, resumeData: nil, result: .failure(error),
            timing: ResponseTiming(start: now, end: now)
        )
    }
}

/// What both tasks do: await the response deferred (made with
/// `automaticallyCancelling: false`, so a cancelled awaiter leaves it to the
/// request), cancelling the request with the awaiting Task when asked to.
private struct AwaitedResponse<Response: FailedResponse>: Sendable {
    let request: Request
    let response: Deferred<Response>
    let automaticallyCancelling: Bool

    var value: Response {
        get async {
            guard automaticallyCancelling else { return await settled() }
            return await withTaskCancellationHandler {
                await settled()
            } onCancel: { [request] in
                request.cancel()
            }
        }
    }

    /// The response the request delivered. Nothing else holds the deferred,
    /// so it is rejected only if the request was dropped before delivering.
    private func settled() async -> Response {
        switch await response.result {
        case .success(let response): response
        case .failure(let error): Response(failing: request.request, with: error.asHTTPError ?? .abandoned)
        }
    }
}

extension DataRequest {
    /// ``SerializingRequest/serializingData(automaticallyCancelling:dataPreprocessor:emptyResponseCodes:emptyRequestMethods:)`` as a ``DataTask``.
    @_disfavoredOverload
    public func serializingData(
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DataTask<Data> {
        serializingResponse(using: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }

    /// ``SerializingRequest/serializingString(automaticallyCancelling:dataPreprocessor:encoding:emptyResponseCodes:emptyRequestMethods:)`` as a ``DataTask``.
    @_disfavoredOverload
    public func serializingString(
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> DataTask<String> {
        serializingResponse(using: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }

    /// ``SerializingRequest/serializingDecodable(_:automaticallyCancelling:dataPreprocessor:decoder:emptyResponseCodes:emptyRequestMethods:)`` as a ``DataTask``.
    @_disfavoredOverload
    public func serializingDecodable<T: Decodable & Sendable>(
        _ type: T.Type = T.self,
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> DataTask<T> {
        serializingResponse(using: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }

    /// A ``DataTask`` whose value `serializer` makes (Alamofire's
    /// `serializingResponse(using:)`); where a deferred type-checks, the
    /// deferred of the whole response is chosen instead.
    @_disfavoredOverload
    public func serializingResponse<Serializer: DataResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling: Bool = true
    ) -> DataTask<Serializer.SerializedObject> {
        DataTask(
            request: self, response: serializingResponse(using: serializer, automaticallyCancelling: false),
            automaticallyCancelling: automaticallyCancelling
        )
    }
}

extension DownloadRequest {
    /// ``SerializingRequest/serializingData(automaticallyCancelling:dataPreprocessor:emptyResponseCodes:emptyRequestMethods:)`` as a ``DownloadTask``.
    @_disfavoredOverload
    public func serializingData(
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DownloadTask<Data> {
        serializingDownload(using: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }

    /// ``SerializingRequest/serializingString(automaticallyCancelling:dataPreprocessor:encoding:emptyResponseCodes:emptyRequestMethods:)`` as a ``DownloadTask``.
    @_disfavoredOverload
    public func serializingString(
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> DownloadTask<String> {
        serializingDownload(using: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }

    /// ``SerializingRequest/serializingDecodable(_:automaticallyCancelling:dataPreprocessor:decoder:emptyResponseCodes:emptyRequestMethods:)`` as a ``DownloadTask``.
    @_disfavoredOverload
    public func serializingDecodable<T: Decodable & Sendable>(
        _ type: T.Type = T.self,
        automaticallyCancelling: Bool = true,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> DownloadTask<T> {
        serializingDownload(using: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: automaticallyCancelling)
    }

    /// ``serializingDownloadedFileURL(automaticallyCancelling:)->Deferred<URL>`` as a ``DownloadTask``.
    @_disfavoredOverload
    public func serializingDownloadedFileURL(automaticallyCancelling: Bool = true) -> DownloadTask<URL> {
        serializingDownload(using: URLResponseSerializer(), automaticallyCancelling: automaticallyCancelling)
    }

    /// ``serializingDownload(using:automaticallyCancelling:)->Deferred<Serializer.SerializedObject>`` as a ``DownloadTask``.
    @_disfavoredOverload
    public func serializingDownload<Serializer: DownloadResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling: Bool = true
    ) -> DownloadTask<Serializer.SerializedObject> {
        DownloadTask(
            request: self, response: serializingResponse(using: serializer, automaticallyCancelling: false),
            automaticallyCancelling: automaticallyCancelling
        )
    }
}
