import Dispatch
import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``EventMonitor`` made of closures, one per event; `nil` ones are skipped.
///
/// Set the closures after creating it, as with Alamofire's, or pass the
/// common ones to the initialiser:
///
/// ```swift
/// let monitor = ClosureEventMonitor(queue: logQueue)
/// monitor.requestDidFinish = { request in
///     print("finished", request)   // a URL's password reads ***
/// }
/// let session = Session(eventMonitors: [monitor])
/// ```
///
/// The closures are read under a lock each time an event arrives, so setting
/// one while requests run is safe: later events use it.
public final class ClosureEventMonitor: EventMonitor {
    /// Every closure, behind ``closures``'s lock.
    private struct Closures {
        var requestDidResume: (@Sendable (Request) -> Void)?
        var requestDidSuspend: (@Sendable (Request) -> Void)?
        var requestIsRetrying: (@Sendable (Request) -> Void)?
        var requestDidCancel: (@Sendable (Request) -> Void)?
        var requestDidFinish: (@Sendable (Request) -> Void)?
        var requestDidReceiveResponse: (@Sendable (Request, HTTPURLResponse) -> Void)?
        var requestDidFailToCreateURLRequestWithError: (@Sendable (Request, HTTPError) -> Void)?
        var requestDidCreateInitialURLRequest: (@Sendable (Request, URLRequest) -> Void)?
        var requestDidAdaptInitialRequestToAdaptedRequest: (@Sendable (Request, URLRequest, URLRequest) -> Void)?
        var requestDidFailToAdaptURLRequestWithError: (@Sendable (Request, URLRequest, HTTPError) -> Void)?
        var requestDidCreateURLRequest: (@Sendable (Request, URLRequest) -> Void)?
        var requestDidValidateRequestResponseDataWithResult: (@Sendable (DataRequest, URLRequest?, HTTPURLResponse, Data?, Request.ValidationResult) -> Void)?
        var requestDidParseResponse: (@Sendable (DataRequest, DataResponse<Data?, HTTPError>) -> Void)?
        var requestDidValidateRequestResponseWithResult: (@Sendable (DataStreamRequest, URLRequest?, HTTPURLResponse, Request.ValidationResult) -> Void)?
        var requestDidValidateRequestResponseFileURLWithResult: (@Sendable (DownloadRequest, URLRequest?, HTTPURLResponse, URL?, Request.ValidationResult) -> Void)?
        var requestDidParseDownloadResponse: (@Sendable (DownloadRequest, DownloadResponse<URL?, HTTPError>) -> Void)?
        var requestDidCreateTask: (@Sendable (Request, RequestTask) -> Void)?
        var requestDidResumeTask: (@Sendable (Request, RequestTask) -> Void)?
        var requestDidSuspendTask: (@Sendable (Request, RequestTask) -> Void)?
        var requestDidCancelTask: (@Sendable (Request, RequestTask) -> Void)?
        var requestDidCompleteTaskWithError: (@Sendable (Request, RequestTask, HTTPError?) -> Void)?
        var requestDidCreateUploadable: (@Sendable (UploadRequest, UploadRequest.Uploadable) -> Void)?
        var requestDidFailToCreateUploadableWithError: (@Sendable (UploadRequest, HTTPError) -> Void)?
        var requestDidCreateDestinationURL: (@Sendable (DownloadRequest, URL) -> Void)?
        var sessionDidBecomeInvalidWithError: (@Sendable ((any Error)?) -> Void)?
        var requestDidFailTaskEarlyWithError: (@Sendable (Request, RequestTask, HTTPError) -> Void)?
        var requestDidGatherTiming: (@Sendable (Request, ResponseTiming) -> Void)?
        var requestDidReceiveChallenge: (@Sendable (Request, HTTPURLResponse) -> Void)?
        var requestWillPerformHTTPRedirection: (@Sendable (Request, HTTPURLResponse, URLRequest) -> Void)?
        var requestDidReceiveData: (@Sendable (Request, Data) -> Void)?
        var requestDidSendBodyData: (@Sendable (Request, TransferProgress) -> Void)?
        var requestDidWriteData: (@Sendable (DownloadRequest, TransferProgress) -> Void)?
        var requestDidResumeAtOffset: (@Sendable (DownloadRequest, Int64, Int64?) -> Void)?
        var requestDidFinishDownloadingUsingTaskWithResult: (@Sendable (DownloadRequest, RequestTask, Result<URL, HTTPError>) -> Void)?
        var requestDidProvideInputStream: (@Sendable (UploadRequest, InputStream) -> Void)?
    }

    public let queue: DispatchQueue
    private let closures: Mutex<Closures>

    /// Called by ``requestDidResume(_:)``.
    public var requestDidResume: (@Sendable (Request) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidResume } }
        set { closures.withLock(owner: self) { $0.requestDidResume = newValue } }
    }
    /// Called by ``requestDidSuspend(_:)``.
    public var requestDidSuspend: (@Sendable (Request) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidSuspend } }
        set { closures.withLock(owner: self) { $0.requestDidSuspend = newValue } }
    }
    /// Called by ``requestIsRetrying(_:)``.
    public var requestIsRetrying: (@Sendable (Request) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestIsRetrying } }
        set { closures.withLock(owner: self) { $0.requestIsRetrying = newValue } }
    }
    /// Called by ``requestDidCancel(_:)``.
    public var requestDidCancel: (@Sendable (Request) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidCancel } }
        set { closures.withLock(owner: self) { $0.requestDidCancel = newValue } }
    }
    /// Called by ``requestDidFinish(_:)``.
    public var requestDidFinish: (@Sendable (Request) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidFinish } }
        set { closures.withLock(owner: self) { $0.requestDidFinish = newValue } }
    }
    /// Called by ``request(_:didReceive:)-(Request,HTTPURLResponse)``.
    public var requestDidReceiveResponse: (@Sendable (Request, HTTPURLResponse) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidReceiveResponse } }
        set { closures.withLock(owner: self) { $0.requestDidReceiveResponse = newValue } }
    }
    /// Called by ``request(_:didFailToCreateURLRequestWithError:)``.
    public var requestDidFailToCreateURLRequestWithError: (@Sendable (Request, HTTPError) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidFailToCreateURLRequestWithError } }
        set { closures.withLock(owner: self) { $0.requestDidFailToCreateURLRequestWithError = newValue } }
    }
    /// Called by ``request(_:didCreateInitialURLRequest:)``.
    public var requestDidCreateInitialURLRequest: (@Sendable (Request, URLRequest) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidCreateInitialURLRequest } }
        set { closures.withLock(owner: self) { $0.requestDidCreateInitialURLRequest = newValue } }
    }
    /// Called by ``request(_:didAdaptInitialRequest:to:)``.
    public var requestDidAdaptInitialRequestToAdaptedRequest: (@Sendable (Request, URLRequest, URLRequest) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidAdaptInitialRequestToAdaptedRequest } }
        set { closures.withLock(owner: self) { $0.requestDidAdaptInitialRequestToAdaptedRequest = newValue } }
    }
    /// Called by ``request(_:didFailToAdaptURLRequest:withError:)``.
    public var requestDidFailToAdaptURLRequestWithError: (@Sendable (Request, URLRequest, HTTPError) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidFailToAdaptURLRequestWithError } }
        set { closures.withLock(owner: self) { $0.requestDidFailToAdaptURLRequestWithError = newValue } }
    }
    /// Called by ``request(_:didCreateURLRequest:)``.
    public var requestDidCreateURLRequest: (@Sendable (Request, URLRequest) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidCreateURLRequest } }
        set { closures.withLock(owner: self) { $0.requestDidCreateURLRequest = newValue } }
    }

    /// Called by ``request(_:didValidateRequest:response:data:withResult:)``.
    public var requestDidValidateRequestResponseDataWithResult: (@Sendable (DataRequest, URLRequest?, HTTPURLResponse, Data?, Request.ValidationResult) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidValidateRequestResponseDataWithResult } }
        set { closures.withLock(owner: self) { $0.requestDidValidateRequestResponseDataWithResult = newValue } }
    }
    /// Called by ``request(_:didParseResponse:)-(DataRequest,DataResponse<Data?,HTTPError>)`` (the untyped `response(queue:completionHandler:)`).
    public var requestDidParseResponse: (@Sendable (DataRequest, DataResponse<Data?, HTTPError>) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidParseResponse } }
        set { closures.withLock(owner: self) { $0.requestDidParseResponse = newValue } }
    }
    /// Called by ``request(_:didValidateRequest:response:withResult:)``.
    public var requestDidValidateRequestResponseWithResult: (@Sendable (DataStreamRequest, URLRequest?, HTTPURLResponse, Request.ValidationResult) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidValidateRequestResponseWithResult } }
        set { closures.withLock(owner: self) { $0.requestDidValidateRequestResponseWithResult = newValue } }
    }
    /// Called by ``request(_:didValidateRequest:response:fileURL:withResult:)``.
    public var requestDidValidateRequestResponseFileURLWithResult: (@Sendable (DownloadRequest, URLRequest?, HTTPURLResponse, URL?, Request.ValidationResult) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidValidateRequestResponseFileURLWithResult } }
        set { closures.withLock(owner: self) { $0.requestDidValidateRequestResponseFileURLWithResult = newValue } }
    }
    /// Called by ``request(_:didParseResponse:)-(DownloadRequest,DownloadResponse<URL?,HTTPError>)`` (the untyped `response(queue:completionHandler:)`).
    public var requestDidParseDownloadResponse: (@Sendable (DownloadRequest, DownloadResponse<URL?, HTTPError>) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidParseDownloadResponse } }
        set { closures.withLock(owner: self) { $0.requestDidParseDownloadResponse = newValue } }
    }
    /// Called by ``request(_:didCreateTask:)``.
    public var requestDidCreateTask: (@Sendable (Request, RequestTask) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidCreateTask } }
        set { closures.withLock(owner: self) { $0.requestDidCreateTask = newValue } }
    }
    /// Called by ``request(_:didResumeTask:)``.
    public var requestDidResumeTask: (@Sendable (Request, RequestTask) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidResumeTask } }
        set { closures.withLock(owner: self) { $0.requestDidResumeTask = newValue } }
    }
    /// Called by ``request(_:didSuspendTask:)``.
    public var requestDidSuspendTask: (@Sendable (Request, RequestTask) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidSuspendTask } }
        set { closures.withLock(owner: self) { $0.requestDidSuspendTask = newValue } }
    }
    /// Called by ``request(_:didCancelTask:)``.
    public var requestDidCancelTask: (@Sendable (Request, RequestTask) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidCancelTask } }
        set { closures.withLock(owner: self) { $0.requestDidCancelTask = newValue } }
    }
    /// Called by ``request(_:didCompleteTask:with:)``.
    public var requestDidCompleteTaskWithError: (@Sendable (Request, RequestTask, HTTPError?) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidCompleteTaskWithError } }
        set { closures.withLock(owner: self) { $0.requestDidCompleteTaskWithError = newValue } }
    }
    /// Called by ``request(_:didCreateUploadable:)``.
    public var requestDidCreateUploadable: (@Sendable (UploadRequest, UploadRequest.Uploadable) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidCreateUploadable } }
        set { closures.withLock(owner: self) { $0.requestDidCreateUploadable = newValue } }
    }
    /// Called by ``request(_:didFailToCreateUploadableWithError:)``.
    public var requestDidFailToCreateUploadableWithError: (@Sendable (UploadRequest, HTTPError) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidFailToCreateUploadableWithError } }
        set { closures.withLock(owner: self) { $0.requestDidFailToCreateUploadableWithError = newValue } }
    }
    /// Called by ``request(_:didCreateDestinationURL:)``.
    public var requestDidCreateDestinationURL: (@Sendable (DownloadRequest, URL) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidCreateDestinationURL } }
        set { closures.withLock(owner: self) { $0.requestDidCreateDestinationURL = newValue } }
    }
    /// Called by ``sessionDidBecomeInvalid(withError:)``.
    public var sessionDidBecomeInvalidWithError: (@Sendable ((any Error)?) -> Void)? {
        get { closures.withLock(owner: self) { $0.sessionDidBecomeInvalidWithError } }
        set { closures.withLock(owner: self) { $0.sessionDidBecomeInvalidWithError = newValue } }
    }
    /// Called by ``request(_:didFailTask:earlyWithError:)``.
    public var requestDidFailTaskEarlyWithError: (@Sendable (Request, RequestTask, HTTPError) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidFailTaskEarlyWithError } }
        set { closures.withLock(owner: self) { $0.requestDidFailTaskEarlyWithError = newValue } }
    }
    /// Called by ``request(_:didGatherTiming:)``.
    public var requestDidGatherTiming: (@Sendable (Request, ResponseTiming) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidGatherTiming } }
        set { closures.withLock(owner: self) { $0.requestDidGatherTiming = newValue } }
    }
    /// Called by ``request(_:didReceiveChallengeIn:)``.
    public var requestDidReceiveChallenge: (@Sendable (Request, HTTPURLResponse) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidReceiveChallenge } }
        set { closures.withLock(owner: self) { $0.requestDidReceiveChallenge = newValue } }
    }
    /// Called by ``request(_:willPerformHTTPRedirection:newRequest:)``.
    public var requestWillPerformHTTPRedirection: (@Sendable (Request, HTTPURLResponse, URLRequest) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestWillPerformHTTPRedirection } }
        set { closures.withLock(owner: self) { $0.requestWillPerformHTTPRedirection = newValue } }
    }
    /// Called by `request(_:didReceive:)` with `Data`.
    public var requestDidReceiveData: (@Sendable (Request, Data) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidReceiveData } }
        set { closures.withLock(owner: self) { $0.requestDidReceiveData = newValue } }
    }
    /// Called by ``request(_:didSendBodyData:)``.
    public var requestDidSendBodyData: (@Sendable (Request, TransferProgress) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidSendBodyData } }
        set { closures.withLock(owner: self) { $0.requestDidSendBodyData = newValue } }
    }
    /// Called by ``request(_:didWriteData:)``.
    public var requestDidWriteData: (@Sendable (DownloadRequest, TransferProgress) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidWriteData } }
        set { closures.withLock(owner: self) { $0.requestDidWriteData = newValue } }
    }
    /// Called by ``request(_:didResumeAtOffset:expectedTotalBytes:)``.
    public var requestDidResumeAtOffset: (@Sendable (DownloadRequest, Int64, Int64?) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidResumeAtOffset } }
        set { closures.withLock(owner: self) { $0.requestDidResumeAtOffset = newValue } }
    }
    /// Called by ``request(_:didFinishDownloadingUsing:with:)``.
    public var requestDidFinishDownloadingUsingTaskWithResult: (@Sendable (DownloadRequest, RequestTask, Result<URL, HTTPError>) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidFinishDownloadingUsingTaskWithResult } }
        set { closures.withLock(owner: self) { $0.requestDidFinishDownloadingUsingTaskWithResult = newValue } }
    }
    /// Called by ``request(_:didProvideInputStream:)``.
    public var requestDidProvideInputStream: (@Sendable (UploadRequest, InputStream) -> Void)? {
        get { closures.withLock(owner: self) { $0.requestDidProvideInputStream } }
        set { closures.withLock(owner: self) { $0.requestDidProvideInputStream = newValue } }
    }

    /// Creates a monitor.
    ///
    /// - Parameters:
    ///   - queue: The serial queue the closures run on (Alamofire's default
    ///     is `.main`, which a Linux program without a main run loop never
    ///     drains; here a queue of the monitor's own).
    ///   - requestDidResume: Called when a request starts.
    ///   - requestIsRetrying: Called before each retry.
    ///   - requestDidCancel: Called when a request is cancelled.
    ///   - requestDidFinish: Called once when a request finishes.
    ///   - requestDidReceiveResponse: Called with each attempt's response head.
    public init(
        queue: DispatchQueue = DispatchQueue(label: "DeferredQueue.ClosureEventMonitor"),
        requestDidResume: (@Sendable (Request) -> Void)? = nil,
        requestIsRetrying: (@Sendable (Request) -> Void)? = nil,
        requestDidCancel: (@Sendable (Request) -> Void)? = nil,
        requestDidFinish: (@Sendable (Request) -> Void)? = nil,
        requestDidReceiveResponse: (@Sendable (Request, HTTPURLResponse) -> Void)? = nil
    ) {
        self.queue = queue
        closures = Mutex(Closures(
            requestDidResume: requestDidResume, requestIsRetrying: requestIsRetrying, requestDidCancel: requestDidCancel,
            requestDidFinish: requestDidFinish, requestDidReceiveResponse: requestDidReceiveResponse
        ))
    }

    public func requestDidResume(_ request: Request) { requestDidResume?(request) }
    public func requestDidSuspend(_ request: Request) { requestDidSuspend?(request) }
    public func requestIsRetrying(_ request: Request) { requestIsRetrying?(request) }
    public func requestDidCancel(_ request: Request) { requestDidCancel?(request) }
    public func requestDidFinish(_ request: Request) { requestDidFinish?(request) }
    public func request(_ request: Request, didReceive response: HTTPURLResponse) {
        requestDidReceiveResponse?(request, response)
    }
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: HTTPError) {
        requestDidFailToCreateURLRequestWithError?(request, error)
    }
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        requestDidCreateInitialURLRequest?(request, urlRequest)
    }
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        requestDidAdaptInitialRequestToAdaptedRequest?(request, initialRequest, adaptedRequest)
    }
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: HTTPError) {
        requestDidFailToAdaptURLRequestWithError?(request, initialRequest, error)
    }
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        requestDidCreateURLRequest?(request, urlRequest)
    }
    public func request(
        _ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?,
        withResult result: Request.ValidationResult
    ) {
        requestDidValidateRequestResponseDataWithResult?(request, urlRequest, response, data, result)
    }
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, HTTPError>) {
        requestDidParseResponse?(request, response)
    }
    public func request(
        _ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
        withResult result: Request.ValidationResult
    ) {
        requestDidValidateRequestResponseWithResult?(request, urlRequest, response, result)
    }
    public func request(
        _ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
        withResult result: Request.ValidationResult
    ) {
        requestDidValidateRequestResponseFileURLWithResult?(request, urlRequest, response, fileURL, result)
    }
    public func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, HTTPError>) {
        requestDidParseDownloadResponse?(request, response)
    }
    public func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) {
        requestDidCreateUploadable?(request, uploadable)
    }
    public func request(_ request: Request, didCreateTask task: RequestTask) { requestDidCreateTask?(request, task) }
    public func request(_ request: Request, didResumeTask task: RequestTask) { requestDidResumeTask?(request, task) }
    public func request(_ request: Request, didSuspendTask task: RequestTask) { requestDidSuspendTask?(request, task) }
    public func request(_ request: Request, didCancelTask task: RequestTask) { requestDidCancelTask?(request, task) }
    public func request(_ request: Request, didCompleteTask task: RequestTask, with error: HTTPError?) {
        requestDidCompleteTaskWithError?(request, task, error)
    }
    public func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: HTTPError) {
        requestDidFailToCreateUploadableWithError?(request, error)
    }
    public func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) {
        requestDidCreateDestinationURL?(request, url)
    }
    public func sessionDidBecomeInvalid(withError error: (any Error)?) {
        sessionDidBecomeInvalidWithError?(error)
    }
    public func request(_ request: Request, didFailTask task: RequestTask, earlyWithError error: HTTPError) {
        requestDidFailTaskEarlyWithError?(request, task, error)
    }
    public func request(_ request: Request, didGatherTiming timing: ResponseTiming) {
        requestDidGatherTiming?(request, timing)
    }
    public func request(_ request: Request, didReceiveChallengeIn response: HTTPURLResponse) {
        requestDidReceiveChallenge?(request, response)
    }
    public func request(_ request: Request, willPerformHTTPRedirection response: HTTPURLResponse, newRequest: URLRequest) {
        requestWillPerformHTTPRedirection?(request, response, newRequest)
    }
    public func request(_ request: Request, didReceive data: Data) {
        requestDidReceiveData?(request, data)
    }
    public func request(_ request: Request, didSendBodyData progress: TransferProgress) {
        requestDidSendBodyData?(request, progress)
    }
    public func request(_ request: DownloadRequest, didWriteData progress: TransferProgress) {
        requestDidWriteData?(request, progress)
    }
    public func request(_ request: DownloadRequest, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) {
        requestDidResumeAtOffset?(request, fileOffset, expectedTotalBytes)
    }
    public func request(_ request: DownloadRequest, didFinishDownloadingUsing task: RequestTask, with result: Result<URL, HTTPError>) {
        requestDidFinishDownloadingUsingTaskWithResult?(request, task, result)
    }
    public func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) {
        requestDidProvideInputStream?(request, stream)
    }
}
