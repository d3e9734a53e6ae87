import Foundation

// Alamofire's `AFError.is…Error` accessors, one per case, so that code
// asking them compiles unchanged.

extension HTTPError {
    /// Whether the request was cancelled with `cancel()` (``cancelled``).
    public var isExplicitlyCancelledError: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// Whether the URL was not an `http` or `https` URL with a host (``invalidURL(_:)``).
    public var isInvalidURLError: Bool {
        if case .invalidURL = self { return true }
        return false
    }

    /// Whether the transport failed before a complete response (``sessionTaskFailed(_:)``).
    public var isSessionTaskError: Bool {
        if case .sessionTaskFailed = self { return true }
        return false
    }

    /// Whether a validator rejected the response (``responseValidationFailed(reason:)``).
    public var isResponseValidationError: Bool {
        if case .responseValidationFailed = self { return true }
        return false
    }

    /// Whether a response serializer failed (``responseSerializationFailed(reason:)``).
    public var isResponseSerializationError: Bool {
        if case .responseSerializationFailed = self { return true }
        return false
    }

    /// Whether an adapter failed (``requestAdaptationFailed(error:)``).
    public var isRequestAdaptationError: Bool {
        if case .requestAdaptationFailed = self { return true }
        return false
    }

    /// Whether a retrier failed (``requestRetryFailed(retryError:originalError:)``).
    public var isRequestRetryError: Bool {
        if case .requestRetryFailed = self { return true }
        return false
    }

    /// Whether the parameters could not be encoded (``parameterEncodingFailed(reason:)``;
    /// Alamofire tells `ParameterEncoding` and `ParameterEncoder` failures apart, this library does not).
    public var isParameterEncodingError: Bool {
        if case .parameterEncodingFailed = self { return true }
        return false
    }

    /// Alamofire's name for ``isParameterEncodingError`` when a ``ParameterEncoder`` failed.
    public var isParameterEncoderError: Bool { isParameterEncodingError }

    /// Whether a multipart form could not be encoded (``multipartEncodingFailed(reason:)``).
    public var isMultipartEncodingError: Bool {
        if case .multipartEncodingFailed = self { return true }
        return false
    }

    /// Whether a ``URLRequestConvertible`` threw (``createURLRequestFailed(error:)``).
    public var isCreateURLRequestError: Bool {
        if case .createURLRequestFailed = self { return true }
        return false
    }

    /// Whether the body to upload could not be read: a file
    /// (``uploadFileUnavailable(_:)``) or a stream (``createUploadableFailed(error:)``).
    public var isCreateUploadableError: Bool {
        switch self {
        case .uploadFileUnavailable, .createUploadableFailed: return true
        default: return false
        }
    }

    /// Whether a download could not be moved to its destination (``downloadedFileMoveFailed(error:source:destination:)``).
    public var isDownloadedFileMoveError: Bool {
        if case .downloadedFileMoveFailed = self { return true }
        return false
    }

    /// Whether the request as sent broke HTTP's syntax (``urlRequestValidationFailed(reason:)``).
    public var isURLRequestValidationError: Bool {
        if case .urlRequestValidationFailed = self { return true }
        return false
    }
}

// Alamofire's convenience properties: the detail each case carries.

extension HTTPError {
    /// What was given as the URL of an ``invalidURL(_:)`` (as Alamofire's, a ``URLConvertible``).
    public var urlConvertible: (any URLConvertible)? {
        if case .invalidURL(let url) = self { return url }
        return nil
    }

    /// The file of a ``multipartEncodingFailed(reason:)`` (the body part's or the output's), if it names one.
    public var url: URL? {
        guard case .multipartEncodingFailed(let reason) = self else { return nil }
        switch reason {
        case .bodyPartURLInvalid(let url), .bodyPartFilenameInvalid(let url), .bodyPartFileNotReachable(let url),
             .bodyPartFileIsDirectory(let url), .bodyPartFileNotReadable(let url, _),
             .bodyPartFileSizeNotAvailable(let url, _), .bodyPartFileSizeChanged(let url, _, _),
             .outputStreamURLInvalid(let url), .outputStreamFileAlreadyExists(let url),
             .outputStreamCreationFailed(let url, _):
            return url
        default:
            return nil
        }
    }

    /// The acceptable content types of a content-type validation failure.
    public var acceptableContentTypes: [String]? {
        switch self {
        case .responseValidationFailed(.unacceptableContentType(let acceptable, _)),
             .responseValidationFailed(.missingContentType(let acceptable)):
            return acceptable
        default:
            return nil
        }
    }

    /// The response's content type, when a content-type validation refused it.
    public var responseContentType: String? {
        if case .responseValidationFailed(.unacceptableContentType(_, let contentType)) = self { return contentType }
        return nil
    }

    /// The encoding a string serializer could not decode the body with.
    public var failedStringEncoding: String.Encoding? {
        if case .responseSerializationFailed(.stringEncodingFailed(let encoding)) = self { return encoding }
        return nil
    }

    /// Where a download was, when it could not be moved (``downloadedFileMoveFailed(error:source:destination:)``).
    public var sourceURL: URL? {
        if case .downloadedFileMoveFailed(_, let source, _) = self { return source }
        return nil
    }

    /// Where a download was to go, when it could not be moved.
    public var destinationURL: URL? {
        if case .downloadedFileMoveFailed(_, _, let destination) = self { return destination }
        return nil
    }
}
