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

    /// Whether the file to upload could not be read (``uploadFileUnavailable(_:)``;
    /// Alamofire's `createUploadableFailed`).
    public var isCreateUploadableError: Bool {
        if case .uploadFileUnavailable = self { return true }
        return false
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
