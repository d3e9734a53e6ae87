import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Routes `URLSession` task events to the ``DataRequest`` that owns the task.
///
/// The map from task identifier to request is what keeps a running request
/// alive; an entry is removed when its task completes. All callbacks arrive
/// on the session's serial delegate queue.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// A redirect chain longer than this fails with `URLError.httpTooManyRedirects`.
    static let redirectLimit = 16

    /// A running task's request, and whether its body comes through the
    /// delegate (`true`) or URLSession's completion handler.
    private struct Entry {
        let request: DataRequest
        let streaming: Bool
    }

    private let requests = Mutex<[Int: Entry]>([:])

    func register(_ request: DataRequest, for task: URLSessionTask, streaming: Bool) {
        requests.withLock(owner: self) { $0[task.taskIdentifier] = Entry(request: request, streaming: streaming) }
    }

    /// The number of tasks in flight (for leak checks).
    var runningCount: Int {
        requests.withLock(owner: self) { $0.count }
    }

    /// Cancels `task` if it has not completed yet.
    ///
    /// swift-corelibs-foundation crashes the process ("Trying to access a
    /// behaviour for a task that in not in the registry", TaskRegistry.swift)
    /// when `URLSessionTask.cancel()` races the task's completion. The
    /// completion is delivered on the delegate queue, so cancelling there, and
    /// only while the task is still in the map, never races it.
    func cancel(_ task: URLSessionTask, on delegateQueue: OperationQueue) {
        delegateQueue.addOperation {
            let running = self.requests.withLock(owner: self) { $0[task.taskIdentifier] != nil }
            if running, task.state == .running { task.cancel() }
        }
    }

    private func request(for task: URLSessionTask) -> DataRequest? {
        requests.withLock(owner: self) { $0[task.taskIdentifier]?.request }
    }

    /// Removes `task`'s entry, if it is one of `streaming` kind.
    private func finish(_ task: URLSessionTask, streaming: Bool) -> DataRequest? {
        requests.withLock(owner: self) { requests in
            guard let entry = requests[task.taskIdentifier], entry.streaming == streaming else { return nil }
            requests[task.taskIdentifier] = nil
            return entry.request
        }
    }

    /// The completion handler of a task whose body URLSession collected.
    func didCollect(for request: DataRequest, data: Data?, response: URLResponse?, error: (any Error)?) {
        guard let task = request.currentTask, finish(task, streaming: false) != nil else { return }
        request.didComplete(task: task, data: data, response: response, error: error)
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        request(for: dataTask)?.didReceive(response: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        request(for: dataTask)?.didReceive(data: data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let follow = request(for: task)?.shouldFollowRedirect(limit: Self.redirectLimit) ?? true
        completionHandler(follow ? newRequest : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // A collecting task ends in its completion handler instead (Apple's
        // URLSession may call this as well).
        finish(task, streaming: true)?.didComplete(task: task, error: error)
    }
}
