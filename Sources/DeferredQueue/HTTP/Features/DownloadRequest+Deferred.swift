import Foundation

// A download's bridges to `Deferred` (and so to async/await), as Alamofire's
// `serializingDownload…` are to its `DownloadTask`:
//
//     let file = try await download(url).validate().serializingDownloadedFileURL().value
//
// The serializers read the finished file on the request's queue, whose
// target the deferred's queue is (see DataRequest+Deferred). Cancelling the
// deferred cancels the download; so does cancelling a Task awaiting it,
// unless `automaticallyCancelling` is `false`.

extension DownloadRequest: SerializingRequest {
    /// Where the finished download is, as a deferred rejected with the
    /// ``HTTPError`` on failure.
    ///
    /// - Parameter automaticallyCancelling: Whether cancelling a Task awaiting
    ///   the deferred cancels the download (default: `true`).
    /// - Returns: A deferred fulfilled with the file's URL.
    public func serializingDownloadedFileURL(automaticallyCancelling: Bool = true) -> Deferred<URL> {
        serializingDownload(using: URLResponseSerializer(), automaticallyCancelling: automaticallyCancelling)
    }

    /// The value `serializer` makes from the file's contents, as a deferred
    /// rejected with the ``HTTPError`` on failure (Alamofire's
    /// `serializingDownload(using:)`).
    ///
    /// - Parameters:
    ///   - serializer: Turns the response and the file's bytes into the value.
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the
    ///     deferred cancels the download (default: `true`).
    /// - Returns: A deferred fulfilled with the value.
    public func serializingDownload<Serializer: DownloadResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling: Bool = true
    ) -> Deferred<Serializer.SerializedObject> {
        bridge(automaticallyCancelling: automaticallyCancelling) { resolver in
            _ = deliver(on: nil, serializer) { resolver.resolve($0.result.mapError { $0 }) }
        }
    }

    /// The value `serializer` makes from the file's contents, as a deferred
    /// rejected with the ``HTTPError`` on failure.
    ///
    /// - Parameters:
    ///   - serializer: Turns the response and the file's bytes into the value.
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the
    ///     deferred cancels the download.
    /// - Returns: A deferred fulfilled with the value.
    public func serializing<Serializer: ResponseSerializer>(
        _ serializer: Serializer, automaticallyCancelling: Bool
    ) -> Deferred<Serializer.SerializedObject> {
        serializingDownload(using: serializer, automaticallyCancelling: automaticallyCancelling)
    }

    /// The whole download response with its value made by `serializer`, as a
    /// deferred fulfilled with it: the failure is inside the response, next
    /// to the status, headers, file and timing (Alamofire's
    /// `DownloadTask.response`). Cancelling the deferred itself rejects it
    /// with ``DeferredError/cancelled`` (and cancels the download).
    ///
    /// - Parameters:
    ///   - serializer: Turns the response and the file's bytes into the value.
    ///   - automaticallyCancelling: Whether cancelling a Task awaiting the
    ///     deferred cancels the download (default: `true`).
    /// - Returns: A deferred fulfilled with the response.
    public func serializingResponse<Serializer: DownloadResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling: Bool = true
    ) -> Deferred<DownloadResponse<Serializer.SerializedObject, HTTPError>> {
        bridge(automaticallyCancelling: automaticallyCancelling) { resolver in
            _ = deliver(on: nil, serializer) { resolver.fulfill($0) }
        }
    }
}
