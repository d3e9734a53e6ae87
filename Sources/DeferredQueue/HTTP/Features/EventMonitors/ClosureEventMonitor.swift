import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``EventMonitor`` made of closures, one per event; `nil` ones are skipped.
///
/// ```swift
/// let monitor = ClosureEventMonitor(queue: logQueue, requestDidFinish: { request in
///     print("finished", request)   // a URL's password reads ***
/// })
/// let session = Session(eventMonitors: [monitor])
/// ```
public final class ClosureEventMonitor: EventMonitor {
    public let queue: DispatchQueue
    /// Called by ``requestDidResume(_:)``.
    public let requestDidResumeClosure: (@Sendable (Request) -> Void)?
    /// Called by ``requestIsRetrying(_:)``.
    public let requestIsRetryingClosure: (@Sendable (Request) -> Void)?
    /// Called by ``requestDidCancel(_:)``.
    public let requestDidCancelClosure: (@Sendable (Request) -> Void)?
    /// Called by ``requestDidFinish(_:)``.
    public let requestDidFinishClosure: (@Sendable (Request) -> Void)?
    /// Called by ``request(_:didReceive:)``.
    public let requestDidReceiveResponseClosure: (@Sendable (Request, HTTPURLResponse) -> Void)?

    /// Creates a monitor.
    ///
    /// - Parameters:
    ///   - queue: The serial queue the closures run on.
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
        requestDidResumeClosure = requestDidResume
        requestIsRetryingClosure = requestIsRetrying
        requestDidCancelClosure = requestDidCancel
        requestDidFinishClosure = requestDidFinish
        requestDidReceiveResponseClosure = requestDidReceiveResponse
    }

    public func requestDidResume(_ request: Request) { requestDidResumeClosure?(request) }
    public func requestIsRetrying(_ request: Request) { requestIsRetryingClosure?(request) }
    public func requestDidCancel(_ request: Request) { requestDidCancelClosure?(request) }
    public func requestDidFinish(_ request: Request) { requestDidFinishClosure?(request) }
    public func request(_ request: Request, didReceive response: HTTPURLResponse) {
        requestDidReceiveResponseClosure?(request, response)
    }
}
