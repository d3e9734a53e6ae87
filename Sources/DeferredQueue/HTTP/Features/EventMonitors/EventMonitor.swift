import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Observes the life of every request of a ``Session``: for logging,
/// metrics and debugging.
///
/// Each method is called on the monitor's ``queue``, in the order the events
/// happen for a request: ``requestDidResume(_:)`` and
/// ``request(_:didCreateInitialURLRequest:)``; then for every attempt
/// ``request(_:didAdaptInitialRequest:to:)`` (when it has adapters; or
/// ``request(_:didFailToAdaptURLRequest:withError:)``),
/// ``request(_:didCreateURLRequest:)`` with the request as sent (or
/// ``request(_:didFailToCreateURLRequestWithError:)`` when it may not be
/// sent), ``request(_:didReceive:)-(Request,HTTPURLResponse)`` and, before each retry,
/// ``requestIsRetrying(_:)``; finally ``requestDidCancel(_:)`` (if cancelled),
/// ``request(_:didGatherTiming:)`` and ``requestDidFinish(_:)``, exactly
/// once. Every method has an empty default implementation.
///
/// The names are Alamofire's. Its events about a `URLSession` and its tasks
/// are here without either, since a transport need not have them: a task is
/// a ``RequestTask`` (one attempt), and the transfer events name the request —
/// the body's bytes (``request(_:didReceive:)-(Request,Data)``), upload and download
/// progress, a followed redirect, an answered challenge, a resumed
/// download's offset, a download's file, an upload's `InputStream`, and the
/// session going away (``sessionDidBecomeInvalid(withError:)``). A monitor
/// written for Alamofire that keeps a `URLSessionTask` or
/// `URLSessionTaskMetrics` parameter still compiles, but that method is
/// never called (it implements no requirement): give it a ``RequestTask``
/// or a ``ResponseTiming``.
///
/// ```swift
/// struct Logger: EventMonitor {
///     let queue = DispatchQueue(label: "logger")
///     func requestDidFinish(_ request: Request) {
///         print(request)   // "GET https://user:***@example.com/entry (200)"
///     }
/// }
/// let session = Session(eventMonitors: [Logger()])
/// ```
///
/// Log a request through its ``Request/description``, which hides a URL's
/// password; `request.request?.url` is the real URL, secrets included.
///
/// - Note: A monitor reads a request's properties when its method runs,
///   which may be later than the event itself.
public protocol EventMonitor: Sendable {
    /// The serial queue the methods are called on (default: one shared
    /// serial queue of this library, never `.main`).
    var queue: DispatchQueue { get }
    /// The request started (its first handler, or `resume()`), or went on
    /// after ``Request/suspend()``.
    func requestDidResume(_ request: Request)
    /// The request was suspended (``Request/suspend()``).
    func requestDidSuspend(_ request: Request)
    /// A failed attempt is about to be retried.
    func requestIsRetrying(_ request: Request)
    /// The request was cancelled.
    func requestDidCancel(_ request: Request)
    /// The request finished, cancelled or not; its handlers are being run.
    func requestDidFinish(_ request: Request)
    /// An attempt received its response head (a redirect or a 401 included).
    func request(_ request: Request, didReceive response: HTTPURLResponse)
    /// An attempt was handed to the transport (Alamofire's task creation).
    func request(_ request: Request, didCreateTask task: RequestTask)
    /// An attempt's transfer started, or went on after ``Request/resume()``.
    func request(_ request: Request, didResumeTask task: RequestTask)
    /// The attempt in flight was held by ``Request/suspend()``.
    func request(_ request: Request, didSuspendTask task: RequestTask)
    /// The attempt in flight was stopped by ``Request/cancel()``.
    func request(_ request: Request, didCancelTask task: RequestTask)
    /// An attempt's transfer ended, with the transport's failure if it
    /// failed, before the session decides what follows (a redirect, a retry,
    /// the outcome). Not told for an attempt that was cancelled or stopped.
    func request(_ request: Request, didCompleteTask task: RequestTask, with error: HTTPError?)
    /// An attempt's request could not be sent as it was built — for example
    /// ``HTTPError/urlRequestValidationFailed(reason:)`` for a header value
    /// holding a line break — so the request fails with `error`.
    func request(_ request: Request, didFailToCreateURLRequestWithError error: HTTPError)
    /// The request's `URLRequest`, as the factory built it, before the first
    /// attempt's adapters.
    func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest)
    /// An attempt's adapters turned `initialRequest` into `adaptedRequest`.
    func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest)
    /// An adapter failed on `initialRequest`: the request fails with `error`
    /// (``HTTPError/requestAdaptationFailed(error:)``).
    func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: HTTPError)
    /// An attempt's request, as it goes to the transport (adapted, with the
    /// session's default headers and cookies).
    func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest)
    /// A validator of a data request ran, on the request's handler queue,
    /// and judged the response `result`.
    func request(
        _ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?,
        withResult result: Request.ValidationResult
    )
    /// `response(queue:completionHandler:)` made its response, before its
    /// completion handler runs.
    func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, HTTPError>)
    /// A response serializer (`responseData`, `responseDecodable`,
    /// `serializing…`) made its response, before its completion handler runs.
    func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, HTTPError>)
    /// A validator of a stream's response head ran and judged it `result`.
    func request(
        _ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
        withResult result: Request.ValidationResult
    )
    /// A validator of a download ran and judged it `result`.
    func request(
        _ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
        withResult result: Request.ValidationResult
    )
    /// `response(queue:completionHandler:)` of a download made its response,
    /// before its completion handler runs.
    func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, HTTPError>)
    /// A download's response serializer made its response, before its
    /// completion handler runs.
    func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, HTTPError>)
    /// An upload's body is ready to be sent (``UploadRequest/uploadable``):
    /// data as the request starts; a file, a form or a stream once prepared.
    func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable)
    /// An upload's body could not be prepared (a form part or a stream that
    /// cannot be read); nothing was sent.
    func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: HTTPError)
    /// A finished download's file was moved to `url`, its destination
    /// (``DownloadRequest/fileURL``); told before the outcome goes to the
    /// request's handlers.
    func request(_ request: DownloadRequest, didCreateDestinationURL url: URL)

    // MARK: Transfer events (Alamofire's `URLSession` events, transport-neutral)

    /// The session was deinitialised and its transport shut down (Alamofire's
    /// `urlSession(_:didBecomeInvalidWithError:)`); `error` is `nil`: a
    /// session is only ever invalidated by going away.
    func sessionDidBecomeInvalid(withError error: (any Error)?)
    /// Attempt `task` ended before a response, because the server's
    /// certificate was refused (``HTTPError/serverTrustEvaluationFailed(reason:)``);
    /// told before ``request(_:didCompleteTask:with:)``.
    func request(_ request: Request, didFailTask task: RequestTask, earlyWithError error: HTTPError)
    /// The request's attempts are over: `timing` spans the request, from its
    /// creation to its outcome (Alamofire's metrics: a response's ``DataResponse/timing``).
    /// Told once, just before ``requestDidFinish(_:)``.
    func request(_ request: Request, didGatherTiming timing: ResponseTiming)
    /// A `401` response offered a `Basic` challenge that the request answers
    /// with its credential (``Request/authenticate(username:password:persistence:)``):
    /// the request is sent again with it.
    func request(_ request: Request, didReceiveChallengeIn response: HTTPURLResponse)
    /// The session follows a redirect: `response` is the redirect, `newRequest`
    /// what the ``Redirector`` made of it, sent next.
    func request(_ request: Request, willPerformHTTPRedirection response: HTTPURLResponse, newRequest: URLRequest)
    /// Bytes of the body arrived, chunk by chunk (in a session with monitors
    /// the transport hands over every chunk); a download's and a stream's
    /// included, except a download the transport writes to its file itself.
    func request(_ request: Request, didReceive data: Data)
    /// Request body bytes went out: the total so far and the total expected, if known.
    func request(_ request: Request, didSendBodyData progress: TransferProgress)
    /// A download's file grew: the bytes so far (a resumed download's
    /// earlier ones included) and the total expected, if known.
    func request(_ request: DownloadRequest, didWriteData progress: TransferProgress)
    /// A resumed download's response continues its partial file of
    /// `fileOffset` bytes; `expectedTotalBytes` is the whole file's size, if known.
    func request(_ request: DownloadRequest, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?)
    /// A download's final attempt ended and its file was moved:
    /// `.success` with the destination (then ``request(_:didCreateDestinationURL:)``
    /// follows), or the failure to move it.
    func request(_ request: DownloadRequest, didFinishDownloadingUsing task: RequestTask, with result: Result<URL, HTTPError>)
    /// An upload's `InputStream` was read to its end and closed: it was
    /// copied to a temporary file, within the session's size limit, which
    /// is what is sent.
    func request(_ request: UploadRequest, didProvideInputStream stream: InputStream)
    /// A stream serializer (`responseStreamString`, `responseStreamDecodable`,
    /// `responseStream(using:)`) made a value, or failed to, from a chunk.
    func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, HTTPError>)
}

/// The default queue of event monitors.
private let defaultEventMonitorQueue = DispatchQueue(label: "DeferredQueue.EventMonitor")

extension EventMonitor {
    public var queue: DispatchQueue { defaultEventMonitorQueue }
    public func requestDidResume(_ request: Request) {}
    public func requestDidSuspend(_ request: Request) {}
    public func requestIsRetrying(_ request: Request) {}
    public func requestDidCancel(_ request: Request) {}
    public func requestDidFinish(_ request: Request) {}
    public func request(_ request: Request, didReceive response: HTTPURLResponse) {}
    public func request(_ request: Request, didCreateTask task: RequestTask) {}
    public func request(_ request: Request, didResumeTask task: RequestTask) {}
    public func request(_ request: Request, didSuspendTask task: RequestTask) {}
    public func request(_ request: Request, didCancelTask task: RequestTask) {}
    public func request(_ request: Request, didCompleteTask task: RequestTask, with error: HTTPError?) {}
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: HTTPError) {}
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {}
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {}
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: HTTPError) {}
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {}
    public func request(
        _ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?,
        withResult result: Request.ValidationResult
    ) {}
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, HTTPError>) {}
    public func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, HTTPError>) {}
    public func request(
        _ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
        withResult result: Request.ValidationResult
    ) {}
    public func request(
        _ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
        withResult result: Request.ValidationResult
    ) {}
    public func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, HTTPError>) {}
    public func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, HTTPError>) {}
    public func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) {}
    public func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: HTTPError) {}
    public func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) {}
    public func sessionDidBecomeInvalid(withError error: (any Error)?) {}
    public func request(_ request: Request, didFailTask task: RequestTask, earlyWithError error: HTTPError) {}
    public func request(_ request: Request, didGatherTiming timing: ResponseTiming) {}
    public func request(_ request: Request, didReceiveChallengeIn response: HTTPURLResponse) {}
    public func request(_ request: Request, willPerformHTTPRedirection response: HTTPURLResponse, newRequest: URLRequest) {}
    public func request(_ request: Request, didReceive data: Data) {}
    public func request(_ request: Request, didSendBodyData progress: TransferProgress) {}
    public func request(_ request: DownloadRequest, didWriteData progress: TransferProgress) {}
    public func request(_ request: DownloadRequest, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) {}
    public func request(_ request: DownloadRequest, didFinishDownloadingUsing task: RequestTask, with result: Result<URL, HTTPError>) {}
    public func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) {}
    public func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, HTTPError>) {}
}
