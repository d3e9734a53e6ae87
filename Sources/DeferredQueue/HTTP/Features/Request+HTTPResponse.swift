import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A handler told of each final response head, on its queue, as it arrives.
struct HTTPResponseHandler: Sendable {
    let queue: DispatchQueue
    let handler: @Sendable (HTTPURLResponse, @escaping @Sendable (URLSession.ResponseDisposition) -> Void) -> Void
}

extension Request {
    /// How a request goes on after `onHTTPResponse(on:perform:)` saw its head (Alamofire's `Request.ResponseDisposition`): `.allow`
    /// or `.cancel`; `.becomeDownload` and `.becomeStream` act as `.allow`.
    public typealias ResponseDisposition = URLSession.ResponseDisposition

    /// Sets the request's response-head handler (the last one set wins, as in Alamofire).
    func setHTTPResponseHandler(_ handler: HTTPResponseHandler) {
        mutableState.withLock(owner: self) { $0.httpResponseHandler = handler }
    }
}

/// A request whose final response head can be judged before its body
/// (``DataRequest``, ``DataStreamRequest``, as in Alamofire).
public protocol ResponseHeadHandling: Request {}

extension DataRequest: ResponseHeadHandling {}
extension DataStreamRequest: ResponseHeadHandling {}

extension ResponseHeadHandling {
    /// Calls `handler` with each final response head as it arrives (not a
    /// redirect the request follows nor a `401` it answers with its
    /// credential, as URLSession handles both inside the task; nor a
    /// redirect a `modify` redirector declines, since it is asked once the
    /// redirect's attempt ended), before the body, which waits for its
    /// answer: `.cancel` cancels the request (the handlers receive
    /// ``HTTPError/cancelled``), anything else lets it run. The last handler
    /// set wins.
    ///
    /// - Parameters:
    ///   - queue: Where `handler` runs (default `.main`).
    ///   - handler: Receives the response and a callback taking the disposition.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func onHTTPResponse(
        on queue: DispatchQueue = .main,
        perform handler: @escaping @Sendable (
            _ response: HTTPURLResponse, _ completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) -> Void
    ) -> Self {
        setHTTPResponseHandler(HTTPResponseHandler(queue: queue, handler: handler))
        return self
    }

    /// Calls `handler` with each final response head as it arrives, before the body.
    @discardableResult
    public func onHTTPResponse(on queue: DispatchQueue = .main, perform handler: @escaping @Sendable (HTTPURLResponse) -> Void) -> Self {
        onHTTPResponse(on: queue) { response, completionHandler in
            handler(response)
            completionHandler(.allow)
        }
    }
}
