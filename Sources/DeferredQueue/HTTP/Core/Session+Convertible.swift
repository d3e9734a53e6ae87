import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The transfer factories for a prepared `URLRequest` or a router
// (``URLRequestConvertible``), under Alamofire's labels. `request(_:interceptor:)`
// is beside the other data requests.

extension Session {
    /// Creates a download of the request `convertible` makes; the first handler starts it.
    ///
    /// - Parameters:
    ///   - convertible: The request to send, or what makes it.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - destination: Where the file goes; `nil` for a unique file in the
    ///     temporary directory (yours to move or delete).
    /// - Returns: The request, ready for handlers.
    public func download(
        _ convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        switch makeURLRequest(from: convertible) {
        case .success(let urlRequest):
            DownloadRequest(session: self, urlRequest: urlRequest, interceptor: interceptor, destination: destination, madeFrom: convertible)
                .resumes(automatically: shouldAutomaticallyResume)
        case .failure(let error): DownloadRequest(session: self, failedWith: error, madeFrom: convertible)
        }
    }

    /// Creates an upload of `data` with the request `convertible` makes; the first handler starts it.
    ///
    /// - Parameters:
    ///   - data: The body.
    ///   - convertible: The request to send, or what makes it.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - fileManager: The request's ``UploadRequest/fileManager`` (data makes no file).
    /// - Returns: The request, ready for handlers.
    public func upload(
        _ data: Data, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        makeUpload(
            .data(data), with: convertible, interceptor: interceptor, shouldAutomaticallyResume: shouldAutomaticallyResume,
            fileManager: fileManager
        )
    }

    /// Creates an upload of the file at `fileURL`, streamed from disk, with the
    /// request `convertible` makes; the first handler starts it.
    ///
    /// - Parameters:
    ///   - fileURL: A file URL.
    ///   - convertible: The request to send, or what makes it.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - fileManager: The request's ``UploadRequest/fileManager`` (your file is never removed).
    /// - Returns: The request, ready for handlers.
    public func upload(
        _ fileURL: URL, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        // The request first, as Alamofire: one that cannot be built is the error to report.
        switch makeURLRequest(from: convertible) {
        case .failure(let error):
            return UploadRequest(session: self, failedWith: error, fileManager: fileManager, madeFrom: convertible)
        case .success(let urlRequest):
            guard Self.isReadableFile(fileURL) else {
                return UploadRequest(
                    session: self, failedWith: .uploadFileUnavailable(fileURL), urlRequest: urlRequest, fileManager: fileManager,
                    madeFrom: convertible
                )
            }
            return UploadRequest(
                session: self, urlRequest: urlRequest, uploadable: .file(fileURL), interceptor: interceptor, fileManager: fileManager,
                madeFrom: convertible
            ).resumes(automatically: shouldAutomaticallyResume)
        }
    }

    /// Creates an upload of what `stream` holds with the request `convertible`
    /// makes; the first handler starts it.
    ///
    /// When the request starts the stream is read once, to its end, into a
    /// temporary file that every attempt sends (retries included) and that
    /// is removed before the handlers run. A stream that fails, or was read by
    /// an upload already, fails every handler with
    /// ``HTTPError/createUploadableFailed(error:)`` and sends nothing.
    ///
    /// - Parameters:
    ///   - stream: An unopened stream, no longer used by the caller.
    ///   - convertible: The request to send, or what makes it.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - fileManager: Whose temporary directory holds the copy (default `.default`).
    /// - Returns: The request, ready for handlers.
    public func upload(
        _ stream: sending InputStream, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        makeUpload(
            .stream(UploadStream(stream, fileManager: fileManager)), with: convertible, interceptor: interceptor,
            shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager
        )
    }

    /// Creates an upload of a `multipart/form-data` form with the request
    /// `convertible` makes; the first handler starts it. The form is encoded
    /// as with ``upload(multipartFormData:to:usingThreshold:method:headers:interceptor:fileManager:shouldAutomaticallyResume:timeout:requestModifier:)``;
    /// its `Content-Type` is set unless the request has one.
    ///
    /// - Parameters:
    ///   - build: Appends the form's parts.
    ///   - convertible: The request to send, or what makes it.
    ///   - threshold: The largest form encoded in memory, in bytes.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - fileManager: The form's file manager: it checks the files appended
    ///     and holds the temporary file (default `.default`).
    /// - Returns: The request, ready for handlers.
    public func upload(
        multipartFormData build: (MultipartFormData) -> Void, with convertible: any URLRequestConvertible,
        usingThreshold threshold: UInt64 = MultipartFormData.encodingMemoryThreshold, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        let form = MultipartFormData(fileManager: fileManager)
        build(form)
        return upload(
            multipartFormData: form, with: convertible, usingThreshold: threshold, interceptor: interceptor,
            shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager
        )
    }

    /// Creates an upload of a `multipart/form-data` form built beforehand,
    /// with the request `convertible` makes; the first handler starts it.
    ///
    /// - Parameters:
    ///   - form: The form.
    ///   - convertible: The request to send, or what makes it.
    ///   - threshold: The largest form encoded in memory, in bytes.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - fileManager: Whose temporary directory holds a form encoded to a file (default `.default`).
    /// - Returns: The request, ready for handlers.
    public func upload(
        multipartFormData form: MultipartFormData, with convertible: any URLRequestConvertible,
        usingThreshold threshold: UInt64 = MultipartFormData.encodingMemoryThreshold, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        switch makeURLRequest(from: convertible) {
        case .success(var urlRequest):
            if urlRequest.value(forHTTPHeaderField: "Content-Type") == nil {
                urlRequest.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
            }
            return UploadRequest(
                session: self, urlRequest: urlRequest,
                uploadable: .multipart(form, threshold: threshold, directory: fileManager.temporaryDirectory),
                interceptor: interceptor, fileManager: fileManager, madeFrom: convertible
            ).resumes(automatically: shouldAutomaticallyResume)
        case .failure(let error):
            return UploadRequest(session: self, failedWith: error, fileManager: fileManager, madeFrom: convertible)
        }
    }

    /// An upload of `uploadable` with the request `convertible` makes, or
    /// one failed from the start when it could not make one.
    private func makeUpload(
        _ uploadable: UploadRequest.Source, with convertible: any URLRequestConvertible,
        interceptor: (any RequestInterceptor)?, shouldAutomaticallyResume: Bool?, fileManager: FileManager
    ) -> UploadRequest {
        switch makeURLRequest(from: convertible) {
        case .success(let urlRequest):
            return UploadRequest(
                session: self, urlRequest: urlRequest, uploadable: uploadable, interceptor: interceptor, fileManager: fileManager,
                madeFrom: convertible
            ).resumes(automatically: shouldAutomaticallyResume)
        case .failure(let error):
            return UploadRequest(session: self, failedWith: error, fileManager: fileManager, madeFrom: convertible)
        }
    }

    /// Creates a streaming request from the request `convertible` makes.
    /// ``DataStreamRequest/responseStream(on:stream:)`` starts it.
    ///
    /// - Parameters:
    ///   - convertible: The request to send, or what makes it.
    ///   - automaticallyCancelOnStreamError: Cancel the request when a stream
    ///     serializer fails on a chunk (default `false`).
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    /// - Returns: The request, ready for stream handlers.
    public func streamRequest(
        _ convertible: any URLRequestConvertible, automaticallyCancelOnStreamError: Bool = false,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil
    ) -> DataStreamRequest {
        switch makeURLRequest(from: convertible) {
        case .success(let urlRequest):
            DataStreamRequest(
                session: self, urlRequest: urlRequest, interceptor: interceptor,
                automaticallyCancelOnStreamError: automaticallyCancelOnStreamError, madeFrom: convertible
            ).resumes(automatically: shouldAutomaticallyResume)
        case .failure(let error): DataStreamRequest(session: self, failedWith: error, madeFrom: convertible)
        }
    }
}

/// Creates a download of the request `convertible` makes, on ``Session/default``.
public func download(
    _ convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
    to destination: DownloadRequest.Destination? = nil
) -> DownloadRequest {
    Session.default.download(convertible, interceptor: interceptor, to: destination)
}

/// Creates an upload of `data` with the request `convertible` makes, on ``Session/default``.
public func upload(_ data: Data, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil) -> UploadRequest {
    Session.default.upload(data, with: convertible, interceptor: interceptor)
}

/// Creates an upload of a file with the request `convertible` makes, on ``Session/default``.
public func upload(_ fileURL: URL, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil) -> UploadRequest {
    Session.default.upload(fileURL, with: convertible, interceptor: interceptor)
}

/// Creates a streaming request from the request `convertible` makes, on ``Session/default``.
public func streamRequest(
    _ convertible: any URLRequestConvertible, automaticallyCancelOnStreamError: Bool = false,
    interceptor: (any RequestInterceptor)? = nil
) -> DataStreamRequest {
    Session.default.streamRequest(
        convertible, automaticallyCancelOnStreamError: automaticallyCancelOnStreamError, interceptor: interceptor
    )
}
