import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// Enqueues a handler of the request's outcome (behind every validation
    /// chained so far) and starts the request. `make` builds what `handler`
    /// receives from the raw response, told whether the request settled: one
    /// cancelled (or, defensively, abandoned) before completion gets the
    /// request as last sent, the head if one arrived, and the failure.
    /// `handler` runs on `queue`, or right there on the request's queue when
    /// `queue` is `nil`.
    ///
    /// The block holds the request weakly: a running request's lifetime stays
    /// the session's business.
    func enqueueOutcome<Response: Sendable>(
        on queue: DispatchQueue?,
        _ make: @escaping @Sendable (_ raw: RawResponse, _ settled: Bool) -> Response,
        _ handler: @escaping @Sendable (Response) -> Void,
        beforeResuming register: ((inout RequestStateMachine) -> Void)? = nil
    ) {
        let urlRequest = self.urlRequest
        enqueueHandler({ [weak self] outcome in
            let response: Response
            switch outcome {
            case .success(let raw):
                response = make(raw, true)
            case .failure(let error):
                response = make(Self.unsettled(error, of: self, built: urlRequest), false)
            }
            guard let queue else { return handler(response) }
            queue.async { handler(response) }
        }, beforeResuming: register)
    }

    /// Like ``enqueueOutcome(on:_:_:beforeResuming:)``, for a response
    /// serializer whose failure (`failure` of what `make` built) the
    /// retriers may retry the request for: the handler then waits, parked,
    /// and runs once, on the retried request's outcome. Handlers chained
    /// after it see that outcome too. Without anything that may retry, it is
    /// an ordinary handler.
    func enqueueRetryableOutcome<Response: Sendable>(
        on queue: DispatchQueue?,
        _ make: @escaping @Sendable (_ raw: RawResponse, _ settled: Bool) -> Response,
        failure: @escaping @Sendable (Response) -> HTTPError?,
        replacingFailure: @escaping @Sendable (Response, HTTPError) -> Response,
        _ handler: @escaping @Sendable (Response) -> Void
    ) {
        guard mayRetry else { return enqueueOutcome(on: queue, make, handler) }
        let urlRequest = self.urlRequest
        let action = mutableState.withLock(owner: self) { state in
            // Under the lock, as every handler: the tail is read and replaced in one place.
            let retryable = RetryableHandler<Response>(
                request: self, after: state.tail, built: urlRequest, queue: queue,
                make: make, failure: failure, replacingFailure: replacingFailure, handler: handler
            )
            state.tail = retryable.next
            return resumeIfAutomatic(&state)
        }
        if case .run = action { run() }
        if !outcome.isPending { keepAliveForHandlers() }
    }

    /// What a handler of a request that ended before it settled receives:
    /// the request as last sent, the head if one arrived, and the failure.
    static func unsettled(_ error: any Error, of request: Request?, built urlRequest: URLRequest?) -> RawResponse {
        RawResponse(
            request: request?.request ?? urlRequest, response: request?.responseHead, data: nil,
            error: HTTPError(unsettledOutcome: error), end: Date()
        )
    }
}
