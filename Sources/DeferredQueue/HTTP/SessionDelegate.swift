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

    private let requests = Mutex<[Int: DataRequest]>([:])

    func register(_ request: DataRequest, for task: URLSessionTask) {
        requests.withLock(owner: self) { $0[task.taskIdentifier] = request }
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
        requests.withLock(owner: self) { $0[task.taskIdentifier] }
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
        let request = requests.withLock(owner: self) { $0.removeValue(forKey: task.taskIdentifier) }
        request?.didComplete(task: task, error: error)
    }
}
