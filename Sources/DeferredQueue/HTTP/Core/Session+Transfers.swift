import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Uploads, downloads and streams: requests whose bodies need not fit in memory.

extension Session {
    /// Creates an upload of `data`; the first handler starts it.
    ///
    /// - Parameters:
    ///   - data: The body.
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method (default `POST`).
    ///   - headers: Header fields to send.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - fileManager: The request's ``UploadRequest/fileManager`` (data makes no file).
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` the session built.
    /// - Returns: The request, ready for handlers.
    public func upload(
        _ data: Data, to url: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        fileManager: FileManager = .default, timeout: Double? = nil, requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        makeUpload(
            url, method: method, headers: headers, interceptor: interceptor, fileManager: fileManager,
            shouldAutomaticallyResume: shouldAutomaticallyResume, timeout: timeout, modifier: requestModifier
        ) { _ in .data(data) }
    }

    /// Creates an upload of what `stream` holds; the first handler starts it.
    ///
    /// When the request starts the stream is read once, to its end, into a
    /// temporary file that every attempt sends (retries included) and that
    /// is removed before the handlers run. A stream that fails, or was read by
    /// an upload already, fails every handler with
    /// ``HTTPError/createUploadableFailed(error:)`` and sends nothing.
    ///
    /// - Parameters:
    ///   - stream: An unopened stream, no longer used by the caller.
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method (default `POST`).
    ///   - headers: Header fields to send.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - fileManager: Whose temporary directory holds the copy (default `.default`).
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` the session built.
    /// - Returns: The request, ready for handlers.
    public func upload(
        _ stream: sending InputStream, to url: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default,
        shouldAutomaticallyResume: Bool? = nil, timeout: Double? = nil, requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        let uploadable = UploadRequest.Source.stream(UploadStream(stream, fileManager: fileManager))
        return makeUpload(
            url, method: method, headers: headers, interceptor: interceptor, fileManager: fileManager,
            shouldAutomaticallyResume: shouldAutomaticallyResume, timeout: timeout, modifier: requestModifier
        ) { _ in uploadable }
    }

    /// Creates an upload of the file at `fileURL`, streamed from disk as it
    /// is sent; the first handler starts it.
    ///
    /// A file that does not exist or is a directory fails every handler with
    /// ``HTTPError/uploadFileUnavailable(_:)`` and sends nothing.
    ///
    /// - Parameters:
    ///   - fileURL: A file URL.
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method (default `POST`).
    ///   - headers: Header fields to send.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - fileManager: The request's ``UploadRequest/fileManager`` (your file is never removed).
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` the session built.
    /// - Returns: The request, ready for handlers.
    public func upload(
        _ fileURL: URL, to url: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        fileManager: FileManager = .default, timeout: Double? = nil, requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        // The URL first, as Alamofire: a bad one is the error to report.
        let urlRequest: URLRequest
        do {
            urlRequest = try makeURLRequest(url, method: method, headers: headers, timeout: timeout, modifier: requestModifier)
        } catch {
            return UploadRequest(session: self, failedWith: error as? HTTPError ?? .invalidURL("\(url)"), fileManager: fileManager)
        }
        guard Self.isReadableFile(fileURL) else {
            return UploadRequest(session: self, failedWith: .uploadFileUnavailable(fileURL), urlRequest: urlRequest, fileManager: fileManager)
        }
        return UploadRequest(session: self, urlRequest: urlRequest, uploadable: .file(fileURL), interceptor: interceptor, fileManager: fileManager)
            .resumes(automatically: shouldAutomaticallyResume)
    }

    /// Whether `fileURL` is a readable regular file (not a directory, a device or a FIFO).
    static func isReadableFile(_ fileURL: URL) -> Bool {
        guard fileURL.isFileURL else { return false }
        // A regular file (a link to one included): a device or a FIFO
        // reports a size of 0 and would go out as an empty body. (A `/proc`
        // file, regular but sized 0, still does: `stat` cannot tell.)
        let path = fileURL.resolvingSymlinksInPath().path
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        return type == .typeRegular && FileManager.default.isReadableFile(atPath: path)
    }

    /// Creates an upload of a `multipart/form-data` form; the first handler starts it.
    ///
    /// ```swift
    /// session.upload(multipartFormData: { form in
    ///     form.append(Data("Ada".utf8), withName: "name")
    ///     form.append(photoURL, withName: "photo")
    /// }, to: "https://example.com/profile")
    /// ```
    ///
    /// The form is encoded when the request starts, off the caller's thread:
    /// in memory up to `threshold` bytes, else to a
    /// temporary file that is streamed and removed before the handlers run. A
    /// part that cannot be read fails every handler with
    /// ``HTTPError/multipartEncodingFailed(reason:)`` and sends nothing.
    ///
    /// - Parameters:
    ///   - build: Appends the form's parts.
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - threshold: The largest form encoded in memory, in bytes (default
    ///     ``MultipartFormData/encodingMemoryThreshold``).
    ///   - method: The HTTP method (default `POST`).
    ///   - headers: Header fields to send; `Content-Type` is the form's.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - fileManager: The form's file manager: it checks the files appended
    ///     and holds the temporary file (default `.default`).
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` the session built.
    /// - Returns: The request, ready for handlers.
    public func upload(
        multipartFormData build: (MultipartFormData) -> Void, to url: any URLConvertible,
        usingThreshold threshold: UInt64 = MultipartFormData.encodingMemoryThreshold, method: HTTPMethod = .post,
        headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default,
        shouldAutomaticallyResume: Bool? = nil, timeout: Double? = nil,
        requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        let form = MultipartFormData(fileManager: fileManager)
        build(form)
        return upload(
            multipartFormData: form, to: url, usingThreshold: threshold, method: method, headers: headers,
            interceptor: interceptor, shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager,
            timeout: timeout, requestModifier: requestModifier
        )
    }

    /// Creates an upload of a `multipart/form-data` form built beforehand;
    /// the first handler starts it, as the variant that takes a closure.
    ///
    /// - Parameters:
    ///   - form: The form.
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - threshold: The largest form encoded in memory, in bytes.
    ///   - method: The HTTP method (default `POST`).
    ///   - headers: Header fields to send; `Content-Type` is the form's.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - fileManager: Whose temporary directory holds a form encoded to a
    ///     file (default `.default`), as Alamofire's.
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` the session built.
    /// - Returns: The request, ready for handlers.
    public func upload(
        multipartFormData form: MultipartFormData, to url: any URLConvertible,
        usingThreshold threshold: UInt64 = MultipartFormData.encodingMemoryThreshold, method: HTTPMethod = .post,
        headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        fileManager: FileManager = .default, timeout: Double? = nil,
        requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        makeUpload(
            url, method: method, headers: headers, interceptor: interceptor, fileManager: fileManager,
            shouldAutomaticallyResume: shouldAutomaticallyResume, timeout: timeout, modifier: requestModifier
        ) { urlRequest in
            if urlRequest.value(forHTTPHeaderField: "Content-Type") == nil {
                urlRequest.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
            }
            return .multipart(form, threshold: threshold, directory: fileManager.temporaryDirectory)
        }
    }

    private func makeUpload(
        _ url: any URLConvertible, method: HTTPMethod, headers: HTTPHeaders?, interceptor: (any RequestInterceptor)?,
        fileManager: FileManager, shouldAutomaticallyResume: Bool?, timeout: Double?, modifier: RequestModifier?,
        body: (inout URLRequest) -> UploadRequest.Source
    ) -> UploadRequest {
        do {
            var urlRequest = try makeURLRequest(url, method: method, headers: headers, timeout: timeout, modifier: modifier)
            let uploadable = body(&urlRequest)
            return UploadRequest(session: self, urlRequest: urlRequest, uploadable: uploadable, interceptor: interceptor, fileManager: fileManager)
                .resumes(automatically: shouldAutomaticallyResume)
        } catch {
            return UploadRequest(session: self, failedWith: error as? HTTPError ?? .invalidURL("\(url)"), fileManager: fileManager)
        }
    }

    /// Creates a download: the body goes to a temporary file as it arrives,
    /// then moves to `destination`. The first handler starts it.
    ///
    /// - Parameters:
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method.
    ///   - parameters: Untyped parameters.
    ///   - encoding: How to encode `parameters` (default: a URL-encoded form).
    ///   - headers: Header fields to send.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` before the parameters are encoded.
    ///   - destination: Where the file goes; `nil` for a unique file in the
    ///     temporary directory (yours to move or delete).
    /// - Returns: The request, ready for handlers.
    public func download(
        _ url: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, timeout: Double? = nil, requestModifier: RequestModifier? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        do {
            var urlRequest = try makeURLRequest(url, method: method, headers: headers, timeout: timeout, modifier: requestModifier)
            if let parameters { urlRequest = try Self.encode(parameters, with: encoding, into: urlRequest) }
            return DownloadRequest(session: self, urlRequest: urlRequest, interceptor: interceptor, destination: destination)
                .resumes(automatically: shouldAutomaticallyResume)
        } catch {
            return DownloadRequest(session: self, failedWith: error as? HTTPError ?? .invalidURL("\(url)"))
        }
    }

    /// Creates a download whose `Encodable` parameters are encoded into its
    /// URL query or body; see ``download(_:method:parameters:encoding:headers:interceptor:shouldAutomaticallyResume:timeout:requestModifier:to:)``.
    ///
    /// - Parameters:
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method.
    ///   - parameters: The parameters, any `Encodable` value; `nil` for none.
    ///   - encoder: How to encode them (default: a URL-encoded form).
    ///   - headers: Header fields to send.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` before the parameters are encoded.
    ///   - destination: Where the file goes; `nil` for a unique file in the temporary directory.
    /// - Returns: The request, ready for handlers.
    public func download<Parameters: Encodable & Sendable>(
        _ url: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, timeout: Double? = nil, requestModifier: RequestModifier? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        do {
            let urlRequest = try makeURLRequest(url, method: method, headers: headers, timeout: timeout, modifier: requestModifier)
            let encoded = try Self.encode(parameters, with: encoder, into: urlRequest)
            return DownloadRequest(session: self, urlRequest: encoded, interceptor: interceptor, destination: destination)
                .resumes(automatically: shouldAutomaticallyResume)
        } catch {
            return DownloadRequest(session: self, failedWith: error as? HTTPError ?? .invalidURL("\(url)"))
        }
    }

    /// Creates a download that continues one that failed or was cancelled
    /// with ``DownloadRequest/cancel(producingResumeData:)``, from its
    /// ``DownloadRequest/resumeData``.
    ///
    /// The request asks for the rest of the entity (`Range`, with `If-Range`
    /// naming the version the first part came from). A `206` continuing the
    /// partial file completes it; a `200` (the server ignores ranges, or the
    /// entity changed) replaces it with the whole body; a `416` starts again
    /// without a range. When the partial file is gone (the temporary
    /// directory was cleaned), the download starts from the beginning.
    /// Resume data is used once: of two downloads resumed from it at the
    /// same time, the first to receive its `206` takes the partial file
    /// over, and the other fails with
    /// ``HTTPError/downloadedFileMoveFailed(error:source:destination:)``.
    ///
    /// - Parameters:
    ///   - data: ``DownloadRequest/resumeData`` of an earlier download (also
    ///     from an earlier run of the program).
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - destination: Where the file goes; `nil` for a unique file in the temporary directory.
    /// - Returns: The request, ready for handlers; data that is not resume
    ///   data fails it with ``HTTPError/createURLRequestFailed(error:)`` (a ``ResumeDataError``).
    public func download(
        resumingWith data: Data, interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        let resume: DownloadResumeData
        do {
            resume = try DownloadResumeData(decoding: data)
        } catch {
            let failure = HTTPError.createURLRequestFailed(error: error)
            return DownloadRequest(session: self, failedWith: failure, madeFrom: ResumedDownload(resumeData: data, built: .failure(failure)))
        }
        var urlRequest = URLRequest(url: resume.url)
        urlRequest.httpMethod = "GET"
        if let timeout = resume.timeout { urlRequest.timeoutInterval = timeout }
        for (name, value) in resume.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let point = ResumePoint(data: resume)
        return DownloadRequest(
            session: self, urlRequest: urlRequest, interceptor: interceptor, destination: destination,
            resumingFrom: point.partialFileIsIntact ? point : nil,
            madeFrom: ResumedDownload(resumeData: data, built: .success(urlRequest))
        ).resumes(automatically: shouldAutomaticallyResume)
    }

    /// Creates a streaming request: its body is handed over chunk by chunk
    /// as it arrives. ``DataStreamRequest/responseStream(on:stream:)`` starts it.
    ///
    /// - Parameters:
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method.
    ///   - headers: Header fields to send.
    ///   - automaticallyCancelOnStreamError: Cancel the request when a stream
    ///     serializer fails on a chunk (default `false`).
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` the session built.
    /// - Returns: The request, ready for stream handlers.
    public func streamRequest(
        _ url: any URLConvertible, method: HTTPMethod = .get, headers: HTTPHeaders? = nil,
        automaticallyCancelOnStreamError: Bool = false,
        interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, timeout: Double? = nil, requestModifier: RequestModifier? = nil
    ) -> DataStreamRequest {
        do {
            let urlRequest = try makeURLRequest(url, method: method, headers: headers, timeout: timeout, modifier: requestModifier)
            return DataStreamRequest(
                session: self, urlRequest: urlRequest, interceptor: interceptor,
                automaticallyCancelOnStreamError: automaticallyCancelOnStreamError
            ).resumes(automatically: shouldAutomaticallyResume)
        } catch {
            return DataStreamRequest(session: self, failedWith: error as? HTTPError ?? .invalidURL("\(url)"))
        }
    }

    /// Creates a streaming request whose `Encodable` parameters are encoded
    /// into its URL query or body; see
    /// ``streamRequest(_:method:headers:automaticallyCancelOnStreamError:interceptor:shouldAutomaticallyResume:timeout:requestModifier:)``.
    ///
    /// - Parameters:
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method.
    ///   - parameters: The parameters, any `Encodable` value; `nil` for none.
    ///   - encoder: How to encode them (default: a URL-encoded form).
    ///   - headers: Header fields to send.
    ///   - automaticallyCancelOnStreamError: Cancel the request when a stream
    ///     serializer fails on a chunk (default `false`).
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` before the parameters are encoded.
    /// - Returns: The request, ready for stream handlers.
    public func streamRequest<Parameters: Encodable & Sendable>(
        _ url: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default, headers: HTTPHeaders? = nil,
        automaticallyCancelOnStreamError: Bool = false,
        interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, timeout: Double? = nil, requestModifier: RequestModifier? = nil
    ) -> DataStreamRequest {
        do {
            let urlRequest = try makeURLRequest(url, method: method, headers: headers, timeout: timeout, modifier: requestModifier)
            return DataStreamRequest(
                session: self, urlRequest: try Self.encode(parameters, with: encoder, into: urlRequest), interceptor: interceptor,
                automaticallyCancelOnStreamError: automaticallyCancelOnStreamError
            ).resumes(automatically: shouldAutomaticallyResume)
        } catch {
            return DataStreamRequest(session: self, failedWith: error as? HTTPError ?? .invalidURL("\(url)"))
        }
    }
}

/// Creates an upload of `data` on ``Session/default``.
public func upload(
    _ data: Data, to url: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
    interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default, timeout: Double? = nil,
    requestModifier: Session.RequestModifier? = nil
) -> UploadRequest {
    Session.default.upload(
        data, to: url, method: method, headers: headers, interceptor: interceptor, fileManager: fileManager, timeout: timeout,
        requestModifier: requestModifier
    )
}

/// Creates an upload of a file, streamed from disk, on ``Session/default``.
public func upload(
    _ fileURL: URL, to url: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
    interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default, timeout: Double? = nil,
    requestModifier: Session.RequestModifier? = nil
) -> UploadRequest {
    Session.default.upload(
        fileURL, to: url, method: method, headers: headers, interceptor: interceptor, fileManager: fileManager, timeout: timeout,
        requestModifier: requestModifier
    )
}

/// Creates an upload of what an `InputStream` holds on ``Session/default``.
public func upload(
    _ stream: sending InputStream, to url: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
    interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default, timeout: Double? = nil,
    requestModifier: Session.RequestModifier? = nil
) -> UploadRequest {
    Session.default.upload(
        stream, to: url, method: method, headers: headers, interceptor: interceptor, fileManager: fileManager,
        timeout: timeout, requestModifier: requestModifier
    )
}

/// Creates an upload of a multipart form on ``Session/default``.
public func upload(
    multipartFormData build: (MultipartFormData) -> Void, to url: any URLConvertible,
    usingThreshold threshold: UInt64 = MultipartFormData.encodingMemoryThreshold, method: HTTPMethod = .post,
    headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default,
    timeout: Double? = nil, requestModifier: Session.RequestModifier? = nil
) -> UploadRequest {
    Session.default.upload(
        multipartFormData: build, to: url, usingThreshold: threshold, method: method, headers: headers,
        interceptor: interceptor, fileManager: fileManager, timeout: timeout, requestModifier: requestModifier
    )
}

/// Creates a download on ``Session/default``.
public func download(
    _ url: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
    encoding: any ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
    interceptor: (any RequestInterceptor)? = nil, timeout: Double? = nil, requestModifier: Session.RequestModifier? = nil,
    to destination: DownloadRequest.Destination? = nil
) -> DownloadRequest {
    Session.default.download(
        url, method: method, parameters: parameters, encoding: encoding, headers: headers, interceptor: interceptor,
        timeout: timeout, requestModifier: requestModifier, to: destination
    )
}

/// Creates a streaming request on ``Session/default``.
public func streamRequest(
    _ url: any URLConvertible, method: HTTPMethod = .get, headers: HTTPHeaders? = nil,
    automaticallyCancelOnStreamError: Bool = false,
    interceptor: (any RequestInterceptor)? = nil, timeout: Double? = nil, requestModifier: Session.RequestModifier? = nil
) -> DataStreamRequest {
    Session.default.streamRequest(
        url, method: method, headers: headers, automaticallyCancelOnStreamError: automaticallyCancelOnStreamError,
        interceptor: interceptor, timeout: timeout, requestModifier: requestModifier
    )
}
