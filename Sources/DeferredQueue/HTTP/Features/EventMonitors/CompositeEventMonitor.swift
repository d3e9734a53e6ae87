import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The monitors of a ``Session`` as one (Alamofire's `CompositeEventMonitor`):
/// each event goes to every monitor, on that monitor's own queue.
///
/// It is an ``EventMonitor`` itself, so a new session can be given another's
/// monitors: `Session(eventMonitors: [session.eventMonitor])`.
///
/// Requests call it while holding their lock, so the events of one request
/// are enqueued on each monitor's queue in the order they happen.
public struct CompositeEventMonitor: EventMonitor {
    /// The queue another session calls this monitor on, when it is one of
    /// that session's monitors; each event then goes on to every monitor's
    /// own ``EventMonitor/queue``.
    public let queue: DispatchQueue
    /// The monitors, in the order given to the session; each event reaches them in this order.
    public let monitors: [any EventMonitor]

    init(monitors: [any EventMonitor], queue: DispatchQueue? = nil) {
        self.queue = queue ?? DispatchQueue(label: "DeferredQueue.CompositeEventMonitor")
        self.monitors = monitors
    }

    /// `nil` for no monitors, so that a session without any pays nothing.
    static func combining(_ monitors: [any EventMonitor]) -> CompositeEventMonitor? {
        monitors.isEmpty ? nil : CompositeEventMonitor(monitors: monitors)
    }

    /// What ``Session/eventMonitor`` is for a session without monitors.
    static let empty = CompositeEventMonitor(monitors: [])

    private func each(_ event: @escaping @Sendable (any EventMonitor) -> Void) {
        for monitor in monitors {
            monitor.queue.async { event(monitor) }
        }
    }

    public func requestDidResume(_ request: Request) { each { $0.requestDidResume(request) } }
    public func requestDidSuspend(_ request: Request) { each { $0.requestDidSuspend(request) } }
    public func request(_ request: Request, didCreateTask task: RequestTask) { each { $0.request(request, didCreateTask: task) } }
    public func request(_ request: Request, didResumeTask task: RequestTask) { each { $0.request(request, didResumeTask: task) } }
    public func request(_ request: Request, didSuspendTask task: RequestTask) { each { $0.request(request, didSuspendTask: task) } }
    public func request(_ request: Request, didCancelTask task: RequestTask) { each { $0.request(request, didCancelTask: task) } }
    public func request(_ request: Request, didCompleteTask task: RequestTask, with error: HTTPError?) {
        each { $0.request(request, didCompleteTask: task, with: error) }
    }
    public func requestIsRetrying(_ request: Request) { each { $0.requestIsRetrying(request) } }
    public func requestDidCancel(_ request: Request) { each { $0.requestDidCancel(request) } }
    public func requestDidFinish(_ request: Request) { each { $0.requestDidFinish(request) } }
    public func request(_ request: Request, didReceive response: HTTPURLResponse) {
        each { $0.request(request, didReceive: response) }
    }
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: HTTPError) {
        each { $0.request(request, didFailToCreateURLRequestWithError: error) }
    }
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        each { $0.request(request, didCreateInitialURLRequest: urlRequest) }
    }
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        each { $0.request(request, didAdaptInitialRequest: initialRequest, to: adaptedRequest) }
    }
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: HTTPError) {
        each { $0.request(request, didFailToAdaptURLRequest: initialRequest, withError: error) }
    }
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        each { $0.request(request, didCreateURLRequest: urlRequest) }
    }
    public func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: Request.ValidationResult) {
        each { $0.request(request, didValidateRequest: urlRequest, response: response, data: data, withResult: result) }
    }
    public func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, withResult result: Request.ValidationResult) {
        each { $0.request(request, didValidateRequest: urlRequest, response: response, withResult: result) }
    }
    public func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?, withResult result: Request.ValidationResult) {
        each { $0.request(request, didValidateRequest: urlRequest, response: response, fileURL: fileURL, withResult: result) }
    }
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, HTTPError>) {
        each { $0.request(request, didParseResponse: response) }
    }
    /// `response`, to each monitor's untyped event when it is what
    /// `response(queue:completionHandler:)` makes, else to the generic one.
    public func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, HTTPError>) {
        if let untyped = response as? DataResponse<Data?, HTTPError> {
            each { $0.request(request, didParseResponse: untyped) }
        } else {
            each { $0.request(request, didParseResponse: response) }
        }
    }
    public func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, HTTPError>) {
        each { $0.request(request, didParseResponse: response) }
    }
    /// As the data request's, for downloads (untyped: `DownloadResponse<URL?, HTTPError>`).
    public func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, HTTPError>) {
        if let untyped = response as? DownloadResponse<URL?, HTTPError> {
            each { $0.request(request, didParseResponse: untyped) }
        } else {
            each { $0.request(request, didParseResponse: response) }
        }
    }
    public func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) {
        each { $0.request(request, didCreateUploadable: uploadable) }
    }
    public func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: HTTPError) {
        each { $0.request(request, didFailToCreateUploadableWithError: error) }
    }
    public func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) {
        each { $0.request(request, didCreateDestinationURL: url) }
    }
    public func sessionDidBecomeInvalid(withError error: (any Error)?) {
        each { $0.sessionDidBecomeInvalid(withError: error) }
    }
    public func request(_ request: Request, didFailTask task: RequestTask, earlyWithError error: HTTPError) {
        each { $0.request(request, didFailTask: task, earlyWithError: error) }
    }
    public func request(_ request: Request, didGatherTiming timing: ResponseTiming) {
        each { $0.request(request, didGatherTiming: timing) }
    }
    public func request(_ request: Request, didReceiveChallengeIn response: HTTPURLResponse) {
        each { $0.request(request, didReceiveChallengeIn: response) }
    }
    public func request(_ request: Request, willPerformHTTPRedirection response: HTTPURLResponse, newRequest: URLRequest) {
        each { $0.request(request, willPerformHTTPRedirection: response, newRequest: newRequest) }
    }
    public func request(_ request: Request, didReceive data: Data) {
        each { $0.request(request, didReceive: data) }
    }
    public func request(_ request: Request, didSendBodyData progress: TransferProgress) {
        each { $0.request(request, didSendBodyData: progress) }
    }
    public func request(_ request: DownloadRequest, didWriteData progress: TransferProgress) {
        each { $0.request(request, didWriteData: progress) }
    }
    public func request(_ request: DownloadRequest, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) {
        each { $0.request(request, didResumeAtOffset: fileOffset, expectedTotalBytes: expectedTotalBytes) }
    }
    public func request(_ request: DownloadRequest, didFinishDownloadingUsing task: RequestTask, with result: Result<URL, HTTPError>) {
        each { $0.request(request, didFinishDownloadingUsing: task, with: result) }
    }
    public func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) {
        // Told once the copy closed the stream: nothing here reads it any more.
        nonisolated(unsafe) let stream = stream
        each { $0.request(request, didProvideInputStream: stream) }
    }
    public func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, HTTPError>) {
        each { $0.request(request, didParseStream: result) }
    }
}
