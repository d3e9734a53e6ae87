import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives one attempt's events from an ``HTTPTransport``, on its
/// ``HTTPTransport/callbackQueue``, in the order the contract gives.
public protocol HTTPTransportEvents: Sendable {
    /// The response head arrived. Reported for every attempt that got one,
    /// collecting or not, before anything else about the response.
    ///
    /// For a transport that gets an `HTTPURLResponse` from its client; one
    /// that reads the head itself reports ``didReceive(head:)``.
    func didReceive(response: HTTPURLResponse)

    /// The response head arrived, as read off the wire (the alternative to
    /// ``didReceive(response:)``; report one of the two): the session makes
    /// an `HTTPURLResponse` of it only when a handler or monitor asks.
    func didReceive(head: ResponseHead)

    /// A chunk of the decoded body arrived (streamed attempts only).
    ///
    /// - Parameters:
    ///   - data: The chunk.
    ///   - handled: For a transport with back-pressure: runs once the session
    ///     is done with the chunk — after every stream handler has run it, on
    ///     whatever queue — so that the transport can stop reading from the
    ///     network meanwhile. `nil` when the transport does not wait.
    func didReceive(data: Data, handled: (@Sendable () -> Void)?)

    /// Request body bytes went out: the total so far and the expected total, if known.
    func didSend(bytes: Int64, of expected: Int64?)

    /// A downloading attempt's file grew: the decoded bytes so far and the expected total, if known.
    func didDownload(bytes: Int64, of expected: Int64?)

    /// A downloading attempt's body is complete in `file`, which now belongs to the session.
    func didFinishDownloading(to file: URL)

    /// The attempt ended: successfully (`error == nil`, after a response
    /// head) or not.
    ///
    /// - Parameters:
    ///   - body: A collecting attempt's body: all of it, or what arrived
    ///     before a failure after the head; `nil` for a streamed attempt, a
    ///     failure before the head, and a body past its limit.
    ///   - error: Why the attempt failed, `nil` when it did not.
    func didComplete(body: Data?, error: (any Error)?)

    /// A collecting attempt ended with its head and its whole body, offered
    /// from the transport's own thread (an event loop) instead of the
    /// callback queue, which saves a thread hop a request.
    ///
    /// The receiver takes the completion there only when handling it runs
    /// none of the caller's code (see ``Session``'s "Threading"); it returns
    /// `false` otherwise, and the transport then reports
    /// ``didReceive(head:)`` and ``didComplete(body:error:)`` on its callback
    /// queue as usual. Offer it only as the attempt's last event, with no
    /// earlier event of the attempt still on its way to the callback queue.
    /// Transports need not offer it.
    ///
    /// - Returns: Whether the completion was taken (nothing more to report).
    func didCompleteDirectly(head: ResponseHead, body: Data) -> Bool
}

extension HTTPTransportEvents {
    /// Reports the head's `HTTPURLResponse` (made now): receivers that keep
    /// heads as they are (the session's) implement it themselves.
    public func didReceive(head: ResponseHead) {
        didReceive(response: head.response)
    }

    /// Takes no completion off the callback queue.
    public func didCompleteDirectly(head: ResponseHead, body: Data) -> Bool { false }
}
