import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The handle of one URLSession attempt: cancels its task safely, and turns
/// the task's ending into the transport contract's terms.
///
/// swift-corelibs-foundation aborts the process ("Trying to access a
/// behaviour for a task that in not in the registry", TaskRegistry.swift)
/// when `URLSessionTask.cancel()` races the task's completion. Completion is
/// delivered on the delegate queue, so cancelling there, and only while the
/// task has not completed, never races it.
final class URLSessionAttemptTask: HTTPTransportTask {
    private struct State {
        /// Released at completion: the task's delegate holds this handle, and
        /// a handle kept its task (and so the request) alive forever.
        var task: URLSessionTask?
        var completed = false
        /// The task was stopped to decline an authentication challenge.
        var declinedChallenge = false
        /// The downloaded file could not be taken over.
        var downloadError: (any Error)?
    }

    private let delegateQueue: OperationQueue
    private let state = Mutex(State())

    init(delegateQueue: OperationQueue) {
        self.delegateQueue = delegateQueue
    }

    /// Records the task (once, before it is resumed).
    func attach(_ task: URLSessionTask) {
        state.withLock(owner: self) { $0.task = task }
    }

    /// Records that the task is being stopped to decline a challenge (on the delegate queue).
    func declineChallenge() {
        state.withLock(owner: self) { $0.declinedChallenge = true }
    }

    /// Records that a download's file could not be taken over (on the delegate queue).
    func failDownload(_ error: any Error) {
        state.withLock(owner: self) { $0.downloadError = error }
    }

    func cancel() {
        delegateQueue.addOperation {
            let task = self.state.withLock(owner: self) { $0.completed ? nil : $0.task }
            if let task, task.state == .running { task.cancel() }
        }
    }

    /// Marks the task completed (on the delegate queue) and returns its
    /// response and error as the session should see them:
    ///
    /// - A task stopped to decline a `401`/`407` challenge ends with
    ///   `URLError.cancelled` on corelibs: it completed with that response.
    /// - On Linux a transfer that ends early after the response head is
    ///   `URLError.unknown` ("transfer closed with N bytes remaining", libcurl's
    ///   `CURLE_PARTIAL_FILE`; a collecting task does not even get the head);
    ///   it is reported as `networkConnectionLost`, as on Apple platforms. A
    ///   head corelibs cannot parse ("Failed writing header") is `badServerResponse`.
    /// - A collecting task that failed reports no response on Linux; the
    ///   task's own `response` is used.
    func complete(response: URLResponse?, error: (any Error)?) -> (response: HTTPURLResponse?, error: (any Error)?) {
        let (task, declined, downloadError) = state.withLock(owner: self) { state in
            state.completed = true
            defer { state.task = nil }
            return (state.task, state.declinedChallenge, state.downloadError)
        }
        let response = (response ?? task?.response) as? HTTPURLResponse
        if error == nil, let downloadError {
            return (response, URLError(.cannotMoveFile, userInfo: [NSUnderlyingErrorKey: downloadError]))
        }
        guard let urlError = error as? URLError else { return (response, error) }
        if declined, urlError.code == .cancelled, response != nil { return (response, nil) }
        guard urlError.code == .unknown else { return (response, error) }
        let message = urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        var userInfo = urlError.userInfo
        userInfo[NSUnderlyingErrorKey] = urlError
        if response != nil || message.hasPrefix("transfer closed with") {
            return (response, URLError(.networkConnectionLost, userInfo: userInfo))
        }
        if message.hasPrefix("Failed writing header") {
            return (response, URLError(.badServerResponse, userInfo: userInfo))
        }
        return (response, error)
    }
}
