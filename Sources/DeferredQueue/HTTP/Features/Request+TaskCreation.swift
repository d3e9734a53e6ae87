import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `onURLSessionTaskCreation(on:perform:)` set: told of each attempt's task.
struct TaskCreationHandler: Sendable {
    let queue: DispatchQueue
    let perform: @Sendable (RequestTask) -> Void

    func tell(_ task: RequestTask) {
        let perform = self.perform
        queue.async { perform(task) }
    }
}

extension Request {
    /// Calls `perform` on `queue` with each task the request creates — one
    /// per attempt: retries, redirect hops and authentication round trips
    /// included — and at once with the current one, if any (Alamofire's
    /// `onURLSessionTaskCreation(on:perform:)`, with a ``RequestTask``: a
    /// transport need not have a `URLSessionTask`). The last closure set wins.
    ///
    /// - Parameters:
    ///   - queue: Where `perform` runs (default `.main`).
    ///   - perform: Receives each task.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func onURLSessionTaskCreation(on queue: DispatchQueue = .main, perform: @escaping @Sendable (RequestTask) -> Void) -> Self {
        let handler = TaskCreationHandler(queue: queue, perform: perform)
        mutableState.withLock(owner: self) { state in
            if let task = state.task { handler.tell(task) }
            state.taskCreationHandler = handler
        }
        return self
    }

    /// Each task the request creates, as an async sequence that ends when
    /// the request finishes (Alamofire's `urlSessionTasks(bufferingPolicy:)`;
    /// see ``onURLSessionTaskCreation(on:perform:)``, which this sets).
    ///
    /// - Parameter bufferingPolicy: What the stream keeps while nobody iterates.
    /// - Returns: The tasks, in the order they were created.
    public func urlSessionTasks(
        bufferingPolicy: AsyncStream<RequestTask>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<RequestTask> {
        eventStream(bufferingPolicy) { queue, yield in onURLSessionTaskCreation(on: queue, perform: yield) }
    }
}
