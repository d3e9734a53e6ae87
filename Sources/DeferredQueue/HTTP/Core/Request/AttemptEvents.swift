import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Routes one attempt's transport events to its request, tagged with the
/// attempt's number so that events of an attempt that is already over
/// (cancelled, superseded by a retry) are ignored.
final class AttemptEvents: HTTPTransportEvents {
    let request: Request
    let attempt: Int

    init(request: Request, attempt: Int) {
        self.request = request
        self.attempt = attempt
    }

    func didReceive(response: HTTPURLResponse) {
        request.attempt(attempt, didReceive: ResponseHead(response))
    }

    func didReceive(head: ResponseHead) {
        request.attempt(attempt, didReceive: head)
    }

    func didReceive(data: Data, handled: (@Sendable () -> Void)?) {
        request.attempt(attempt, didReceive: data, handled: handled)
    }

    func didSend(bytes: Int64, of expected: Int64?) {
        request.attempt(attempt, didSend: bytes, of: expected)
    }

    func didDownload(bytes: Int64, of expected: Int64?) {
        request.attempt(attempt, didDownload: bytes, of: expected)
    }

    func didFinishDownloading(to file: URL) {
        request.attempt(attempt, didFinishDownloadingTo: file)
    }

    func didComplete(body: Data?, error: (any Error)?) {
        request.attempt(attempt, didCompleteWith: body, error: error)
    }

    func didCompleteDirectly(head: ResponseHead, body: Data) -> Bool {
        request.attempt(attempt, didCompleteDirectly: head, body: body)
    }
}
