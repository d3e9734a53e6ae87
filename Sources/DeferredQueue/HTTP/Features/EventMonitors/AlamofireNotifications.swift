import Foundation

extension Request {
    /// Posted by ``AlamofireNotifications`` when a request starts.
    public static let didResumeNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didResume")
    /// Posted by ``AlamofireNotifications`` when a request is suspended.
    public static let didSuspendNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didSuspend")
    /// Posted by ``AlamofireNotifications`` when a request is cancelled.
    public static let didCancelNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didCancel")
    /// Posted by ``AlamofireNotifications`` when a request finishes, cancelled or not.
    public static let didFinishNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didFinish")
    /// Posted by ``AlamofireNotifications`` when an attempt (a ``RequestTask``) starts.
    public static let didResumeTaskNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didResumeTask")
    /// Posted by ``AlamofireNotifications`` when an attempt is suspended.
    public static let didSuspendTaskNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didSuspendTask")
    /// Posted by ``AlamofireNotifications`` when an attempt is cancelled.
    public static let didCancelTaskNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didCancelTask")
    /// Posted by ``AlamofireNotifications`` when an attempt completes, with a response or an error.
    public static let didCompleteTaskNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didCompleteTask")
}

extension Notification {
    /// The request a notification of ``AlamofireNotifications`` is about.
    public var request: Request? {
        userInfo?[AlamofireNotifications.requestKey] as? Request
    }
}

/// Posts Alamofire's `Request` notifications to `NotificationCenter.default`
/// for every request of the sessions it monitors.
///
/// Alamofire adds it to every session; here it is opt-in, since posting costs
/// every request something whether or not anyone observes:
///
/// ```swift
/// import DeferredQueue
/// import Foundation
///
/// let session = Session(eventMonitors: [AlamofireNotifications()])
/// let observer = NotificationCenter.default.addObserver(
///     forName: Request.didFinishNotification, object: nil, queue: nil
/// ) { notification in
///     print("finished:", notification.request?.description ?? "?")
/// }
/// ```
///
/// The task notifications (``Request/didResumeTaskNotification``…) are
/// posted for each attempt: its first send, each retry, redirect hop and
/// authentication round trip (see ``RequestTask``).
public final class AlamofireNotifications: EventMonitor {
    /// The `userInfo` key of the request: Alamofire's.
    static let requestKey = "org.alamofire.notification.key.request"

    /// Creates the monitor.
    public init() {}

    public func requestDidResume(_ request: Request) { post(Request.didResumeNotification, request) }
    public func requestDidSuspend(_ request: Request) { post(Request.didSuspendNotification, request) }
    public func requestDidCancel(_ request: Request) { post(Request.didCancelNotification, request) }
    public func requestDidFinish(_ request: Request) { post(Request.didFinishNotification, request) }
    public func request(_ request: Request, didResumeTask task: RequestTask) { post(Request.didResumeTaskNotification, request) }
    public func request(_ request: Request, didSuspendTask task: RequestTask) { post(Request.didSuspendTaskNotification, request) }
    public func request(_ request: Request, didCancelTask task: RequestTask) { post(Request.didCancelTaskNotification, request) }
    public func request(_ request: Request, didCompleteTask task: RequestTask, with error: HTTPError?) {
        post(Request.didCompleteTaskNotification, request)
    }

    private func post(_ name: Notification.Name, _ request: Request) {
        NotificationCenter.default.post(name: name, object: nil, userInfo: [Self.requestKey: request])
    }
}
