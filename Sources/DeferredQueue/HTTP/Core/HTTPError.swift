import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every way an HTTP request of this library can fail.
///
/// Switch over the cases for full detail, or use the accessors (``isCancelled``,
/// ``isTimeout``, ``responseCode``, ``underlyingError``, ``urlError``) for the common
/// questions. ``description`` says what happened and what to do about it.
///
/// ```swift
/// switch response.result {
/// case .success(let json): show(json)
/// case .failure(let error) where error.isCancelled: break
/// case .failure(let error): print(error)   // e.g. "The server answered HTTP 404 (Not Found) …"
/// }
/// ```
public enum HTTPError: Error, Sendable, CustomStringConvertible {
    /// The string or components given as a URL do not form an `http` or `https` URL with a host.
    case invalidURL(String)
    /// The URL loading system failed before a complete response arrived (no connection,
    /// DNS failure, timeout, TLS failure, connection lost…).
    case sessionTaskFailed(URLError)
    /// The request was cancelled with `cancel()` before it completed.
    case cancelled
    /// The response arrived but a `validate(…)` step rejected it.
    case responseValidationFailed(reason: ValidationFailureReason)
    /// The response arrived but its body could not be turned into the requested value.
    case responseSerializationFailed(reason: SerializationFailureReason)
    /// The request was dropped while still pending, so it can never complete.
    case abandoned
    /// A ``RequestAdapter`` threw this error; no request was sent.
    case requestAdaptationFailed(error: any Error)
    /// A ``RequestRetrier`` decided not to retry, with `retryError`, after the attempt failed with `originalError`.
    indirect case requestRetryFailed(retryError: any Error, originalError: HTTPError)
    /// The response body grew past its limit (the session's `maximumResponseBodySize` for a body held in memory,
    /// its `maximumStreamedBodySize` for a download or a stream, or the request's own); the transfer was stopped.
    case responseTooLarge(limit: Int)
    /// A download finished, but its file could not be written or moved to its destination.
    case downloadedFileMoveFailed(error: any Error, source: URL?, destination: URL?)
    /// The file to upload does not exist, is not a regular file (a directory, a device, a FIFO),
    /// or cannot be read; nothing was sent.
    case uploadFileUnavailable(URL)
    /// The body of an `InputStream` upload could not be read (or was read
    /// already: a stream is sent once, or was longer than the session's
    /// ``Session/maximumStreamedBodySize``); nothing was sent.
    case createUploadableFailed(error: any Error)
    /// The request's parameters could not be encoded into it by a ``ParameterEncoder``.
    case parameterEncodingFailed(reason: ParameterEncodingFailureReason)
    /// A ``MultipartFormData`` could not be encoded (a missing file, a failed write…).
    case multipartEncodingFailed(reason: MultipartEncodingFailureReason)
    /// The request as it would go on the wire breaks HTTP's syntax (a method or a header
    /// field that could smuggle a second request or a header); nothing was sent.
    case urlRequestValidationFailed(reason: URLRequestValidationFailureReason)
    /// A ``URLRequestConvertible``'s `asURLRequest()` threw; nothing was sent.
    case createURLRequestFailed(error: any Error)
    /// The server's TLS credentials were refused by the session's
    /// ``ServerTrustManager`` (or could not be evaluated): nothing of the
    /// request was sent.
    case serverTrustEvaluationFailed(reason: ServerTrustFailureReason)

    /// Why a `validate(…)` step rejected a response.
    public enum ValidationFailureReason: Sendable, CustomStringConvertible {
        /// The status code is not among the acceptable ones (by default `200..<300`).
        case unacceptableStatusCode(code: Int)
        /// The response's MIME type matches none of the acceptable ones.
        case unacceptableContentType(acceptable: [String], responseContentType: String)
        /// The response has no `Content-Type`, but validation asked for one.
        case missingContentType(acceptable: [String])
        /// A custom validation closure returned this error.
        case customValidationFailed(error: any Error)

        /// What was rejected and how to fix it.
        public var description: String {
            switch self {
            case .unacceptableStatusCode(let code):
                let phrase = HTTPURLResponse.localizedString(forStatusCode: code)
                return "The server answered HTTP \(code) (\(phrase)), which is not among the status codes accepted "
                    + "(by validate(statusCode:), or 200..<300 by validate() and by retriers judging an attempt). "
                    + "Check the URL and the request, or pass the codes you expect to validate(statusCode:)."
            case .unacceptableContentType(let acceptable, let responseContentType):
                return "The response has Content-Type \"\(responseContentType)\", which is none of the acceptable types "
                    + "\(acceptable.joined(separator: ", ")). The server may have answered with an error page; check the URL, "
                    + "or widen validate(contentType:)."
            case .missingContentType(let acceptable):
                return "The response has no Content-Type header, but validation requires one of "
                    + "\(acceptable.joined(separator: ", ")). Drop validate(contentType:) if the server omits it."
            case .customValidationFailed(let error):
                return "A custom validation rejected the response: \(error)"
            }
        }
    }

    /// Why a response body could not be turned into the requested value.
    public enum SerializationFailureReason: Sendable, CustomStringConvertible {
        /// The body is missing or empty, and the serializer needs one: the response's status
        /// code and the request's method are not among those it accepts an empty body for.
        /// `serializer` names it, e.g. `"DecodableResponseSerializer<Entry>"`.
        case inputDataNilOrZeroLength(serializer: String)
        /// The body is empty where an empty body is allowed (204, 205, `HEAD` by default), but
        /// the requested type cannot be made from nothing: it does not conform to
        /// ``EmptyResponse``. `type` names it.
        case invalidEmptyResponse(type: String)
        /// The body is not valid JSON; the error says where.
        case jsonSyntax(JSON.ParseError)
        /// The body was parsed, but `Decodable` decoding into the requested type failed.
        case decodingFailed(error: any Error)
        /// The body is not valid text in the given encoding.
        case stringEncodingFailed(encoding: String.Encoding)
        /// A serializer (or its ``DataPreprocessor``) threw an error that is not an ``HTTPError``.
        case customSerializationFailed(error: any Error)
        /// A download serializer was given no file: the download failed before
        /// it had one (a finished download always has one, an empty body's too).
        case inputFileNil
        /// A download serializer could not read the downloaded file at this URL
        /// (it was removed or replaced by something that is not a readable file).
        case inputFileReadFailed(at: URL)

        /// What went wrong and how to fix it.
        public var description: String {
            switch self {
            case .inputDataNilOrZeroLength(let serializer):
                return "The response body is empty, but \(serializer) needs one: it accepts an empty body only for the "
                    + "status codes in its emptyResponseCodes (204, 205 by default) and the methods in its emptyRequestMethods "
                    + "(HEAD by default). If an empty body is a valid answer here, add its status code to emptyResponseCodes."
            case .invalidEmptyResponse(let type):
                return "The response body is empty, which is allowed for this response, but \(type) cannot be made from "
                    + "an empty body. Decode Empty, or make \(type) conform to EmptyResponse."
            case .jsonSyntax(let error):
                return "The response body is not valid JSON: \(error). Check that the URL returns JSON "
                    + "(validate(contentType: [\"application/json\"]) catches HTML error pages)."
            case .decodingFailed(let error):
                // The decoder could not read the body at all (not JSON, or nested past its depth): not a type to fix.
                if case .dataCorrupted(let context) = error as? DecodingError, context.codingPath.isEmpty {
                    return "The response body could not be read by the decoder: \(Self.sentence(context.debugDescription)) "
                        + "Check that the URL returns what the decoder reads (validate(contentType: [\"application/json\"]) "
                        + "catches HTML error pages)."
                }
                return "The response body does not match the expected type: \(Self.sentence(Self.describe(decodingError: error))) "
                    + "Make the Decodable type match the payload (optionals for fields that may be missing)."
            case .stringEncodingFailed(let encoding):
                return "The response body is not valid text in the encoding \(encoding) (declared by the caller or the "
                    + "Content-Type charset). Pass the right encoding to responseString(encoding:) or use responseData."
            case .customSerializationFailed(let error):
                return "A response serializer or data preprocessor failed: \(error)"
            case .inputFileNil:
                return "The download has no file to serialize: it failed before the body was written to one. "
                    + "The request's error says why; a serializer given no file reports this."
            case .inputFileReadFailed(let url):
                return "The downloaded file at \(url.path) could not be read: it was moved, removed or replaced "
                    + "before the serializer ran. Read a download's file in its handler, before anything else moves it."
            }
        }

        /// `DecodingError`'s own description hides the path; spell it out.
        /// `text` ending with one period.
        private static func sentence(_ text: String) -> String {
            text.hasSuffix(".") ? text : text + "."
        }

        private static func describe(decodingError error: any Error) -> String {
            guard let error = error as? DecodingError else { return "\(error)" }
            func path(_ context: DecodingError.Context) -> String {
                let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                return keys.isEmpty ? "at the top level" : "at \(keys)"
            }
            switch error {
            case .keyNotFound(let key, let context):
                return "missing key \"\(key.stringValue)\" \(path(context))"
            case .valueNotFound(let type, let context):
                return "null or missing value for \(type) \(path(context))"
            case .typeMismatch(let type, let context):
                return "expected \(type) \(path(context)): \(context.debugDescription)"
            case .dataCorrupted(let context):
                return "invalid data \(path(context)): \(context.debugDescription)"
            @unknown default:
                return "\(error)"
            }
        }
    }

    /// What happened and what to do about it.
    ///
    /// Secrets are hidden: a URL's password reads `***`, here and in every
    /// error quoted in the text (see <doc:Security>).
    public var description: String {
        Redaction.text(plainDescription)
    }

    /// The description before redaction.
    private var plainDescription: String {
        switch self {
        case .invalidURL(let url):
            if let reason = URL(string: url)?.refusalReason { return "\"\(url)\" is not sent: \(reason)." }
            return "\"\(url)\" is not a valid URL: it needs an http or https scheme and a host, "
                + "e.g. \"https://example.com/path\". Percent-encode spaces and other special characters."
        case .sessionTaskFailed(let error):
            let url = error.failingURL.map { " for \($0.absoluteString)" } ?? ""
            // The transport's own words, when it had some: which check failed, libcurl's message.
            let detail = (error.userInfo[NSLocalizedDescriptionKey] as? String).map { " \($0)" } ?? ""
            return "The request\(url) failed before a complete response arrived: \(Self.explain(error.code)) "
                + "(URLError \(error.code.rawValue)).\(detail)"
        case .cancelled:
            return "The request was cancelled by calling cancel() before it completed; no response is delivered."
        case .responseValidationFailed(let reason):
            return reason.description
        case .responseSerializationFailed(let reason):
            return reason.description
        case .abandoned:
            return "The request was dropped while still pending (its session or request was released), so it "
                + "can never complete. Keep the Session alive until its requests finish."
        case .requestAdaptationFailed(let error):
            return "A request adapter failed, so the request was not sent: \(error). Check the adapter "
                + "(for example a token provider) or the interceptor passed to the session or request."
        case .requestRetryFailed(let retryError, let originalError):
            return "The request failed (\(originalError)) and its retrier gave up with: \(retryError)."
        case .downloadedFileMoveFailed(let error, let source, let destination):
            let route = [source.map { "from \($0.path)" }, destination.map { "to \($0.path)" }].compactMap { $0 }.joined(separator: " ")
            if let refusal = error as? DownloadRequest.DestinationError {
                return "The download finished, but its file was not moved\(route.isEmpty ? "" : " " + route): \(refusal) "
                    + "The downloaded file was removed."
            }
            return "The download finished, but its file could not be written or moved\(route.isEmpty ? "" : " " + route): \(error). "
                + "Check that the destination's directory exists (or pass .createIntermediateDirectories), that no file is "
                + "in the way (or pass .removePreviousFile), and that there is space on the disk."
        case .uploadFileUnavailable(let url):
            guard url.isFileURL else {
                return "The file to upload, \(Redaction.url(url)), is not a file URL, so nothing was sent. "
                    + "Pass URL(fileURLWithPath:) of the file; to send a body from elsewhere, pass its Data or an InputStream."
            }
            return "The file to upload, \(url.path), does not exist, is not a regular file (a directory, a device, a FIFO) "
                + "or cannot be read, so nothing was sent. "
                + "Check the path (a file URL) and its permissions."
        case .createUploadableFailed(let error):
            return "The stream to upload could not be copied for sending, so nothing was sent: \(error). "
                + "Pass an unopened InputStream that nothing else reads, once per upload, within the session's maximumStreamedBodySize."
        case .responseTooLarge(let limit):
            // The case does not say which limit applied (saying so would change
            // its associated values), so the advice names each with its use.
            return "The response body is larger than the limit of \(limit) bytes (decoded), so the transfer was stopped. "
                + "Raise the limit that applies: Session(maximumResponseBodySize:) for a body held in memory, "
                + "Session(maximumStreamedBodySize:) for a download or a stream, or the request's maximumResponseBodySize(_:) "
                + "for either; download or stream a big body rather than holding it in memory."
        case .parameterEncodingFailed(let reason):
            return reason.description
        case .multipartEncodingFailed(let reason):
            return reason.description
        case .urlRequestValidationFailed(let reason):
            return reason.description
        case .createURLRequestFailed(let error):
            return "The request could not be built, so nothing was sent: its URLRequestConvertible threw \(error)."
        case .serverTrustEvaluationFailed(let reason):
            return "Server trust evaluation failed, so nothing was sent: \(reason)."
        }
    }

    private static func explain(_ code: URLError.Code) -> String {
        switch code {
        case .timedOut: return "the request timed out; the server may be slow or unreachable, so retry or raise the timeout"
        case .cannotFindHost, .dnsLookupFailed: return "the host name could not be resolved; check the URL's host"
        case .cannotConnectToHost: return "the server refused the connection; check the host and port and that the server is running"
        case .networkConnectionLost: return "the connection was lost mid-request; retry"
        case .notConnectedToInternet: return "the device is not connected to the internet"
        // A certificate failure can be an attack: say so, never "retry".
        case .serverCertificateUntrusted:
            return "TLS certificate failure: the server's certificate is not trusted (self-signed, or not issued for "
                + "this host name); this may be an attack or a misconfigured server, so check the certificate before trusting it"
        case .serverCertificateHasUnknownRoot:
            return "TLS certificate failure: the server's certificate was issued by a certificate authority that is not "
                + "trusted; this may be an attack, or a private CA the client must be configured to trust"
        case .serverCertificateHasBadDate:
            return "TLS certificate failure: the server's certificate has expired (or is outside its validity period); "
                + "the server must renew it, or this machine's clock is wrong"
        case .serverCertificateNotYetValid:
            return "TLS certificate failure: the server's certificate is not yet valid; check this machine's clock"
        case .secureConnectionFailed:
            return "the TLS handshake failed (no common protocol version or cipher, or the server does not speak TLS)"
        case .clientCertificateRejected, .clientCertificateRequired:
            return "TLS failure: the server requires or rejected the client's certificate"
        case .badServerResponse: return "the server sent a malformed response"
        case .cancelled: return "the underlying task was cancelled"
        case .badURL, .unsupportedURL: return "the URL is not supported by the URL loading system"
        case .httpTooManyRedirects, .redirectToNonExistentLocation: return "the server's redirects could not be followed"
        case .resourceUnavailable, .zeroByteResource: return "the resource is unavailable"
        case .dataLengthExceedsMaximum: return "the response is larger than allowed"
        case .requestBodyStreamExhausted:
            return "the request's body could not be sent as announced (a body stream read by an earlier attempt, "
                + "or an uploaded file that changed length while it was sent)"
        default: return "the URL loading system reported an error"
        }
    }
}

/// Alamofire's name for a result that fails with the library's error.
public typealias AFResult<Success> = Result<Success, HTTPError>

extension HTTPError {
    /// Whether the request was cancelled: ``cancelled``, or a session task that failed with
    /// `URLError.cancelled`.
    public var isCancelled: Bool {
        switch self {
        case .cancelled: return true
        case .sessionTaskFailed(let error): return error.code == .cancelled
        default: return false
        }
    }

    /// Whether the server's TLS credentials were refused (``serverTrustEvaluationFailed(reason:)``).
    public var isServerTrustEvaluationError: Bool {
        if case .serverTrustEvaluationFailed = self { return true }
        return false
    }

    /// Whether the request timed out (`URLError.timedOut`).
    public var isTimeout: Bool {
        urlError?.code == .timedOut
    }

    /// The HTTP status code that failed validation, if that is what happened.
    public var responseCode: Int? {
        if case .responseValidationFailed(.unacceptableStatusCode(let code)) = self { return code }
        return nil
    }

    /// The lower-level error behind this one, if any: the `URLError`, the JSON
    /// ``JSON/ParseError``, the `DecodingError`, the parameter `EncodingError`, the multipart
    /// form's file or stream error, the adapter's or retrier's error, or the custom validation
    /// or serialization error.
    public var underlyingError: (any Error)? {
        switch self {
        case .sessionTaskFailed(let error): return error
        case .responseValidationFailed(.customValidationFailed(let error)): return error
        case .responseSerializationFailed(.jsonSyntax(let error)): return error
        case .responseSerializationFailed(.decodingFailed(let error)): return error
        case .requestAdaptationFailed(let error): return error
        case .createUploadableFailed(let error): return error
        case .downloadedFileMoveFailed(let error, _, _): return error
        case .requestRetryFailed(let retryError, _): return retryError
        case .responseSerializationFailed(.customSerializationFailed(let error)): return error
        case .parameterEncodingFailed(let reason): return reason.underlyingError
        case .multipartEncodingFailed(let reason): return reason.underlyingError
        case .serverTrustEvaluationFailed(.customEvaluationFailed(let error)): return error
        default: return nil
        }
    }

    /// The `URLError` of a ``sessionTaskFailed(_:)``, otherwise `nil`.
    public var urlError: URLError? {
        if case .sessionTaskFailed(let error) = self { return error }
        return nil
    }
}

extension HTTPError: LocalizedError {
    /// The same text as ``description``, so `localizedDescription` is readable on every platform.
    public var errorDescription: String? {
        description
    }
}

extension HTTPError {
    /// What a handler receives when the request's outcome never arrived:
    /// ``cancelled`` for a cancelled request, otherwise (defensively) ``abandoned``.
    /// A transform's thrown error: an ``HTTPError`` as it is, any other as a
    /// custom serialization failure.
    init(serializationStep error: any Error) {
        self = error as? HTTPError ?? .responseSerializationFailed(reason: .customSerializationFailed(error: error))
    }

    init(unsettledOutcome error: any Error) {
        self = (error as? DeferredError)?.isCancelled == true ? .cancelled : .abandoned
    }

    /// The error for a transport failure: a cancellation is ``cancelled``,
    /// a `URLError` is ``sessionTaskFailed(_:)``, and any other error is
    /// ``sessionTaskFailed(_:)`` with `URLError.unknown` wrapping it.
    init(transportError error: any Error) {
        if let error = error as? HTTPError {
            self = error
        } else if let urlError = error as? URLError {
            self = urlError.code == .cancelled ? .cancelled : .sessionTaskFailed(urlError)
        } else {
            self = .sessionTaskFailed(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error]))
        }
    }
}
extension HTTPError: CancellableError {}
