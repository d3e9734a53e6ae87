import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// Enqueues a handler of the request's outcome (behind every validation
    /// chained so far) and starts the request. `responder` builds what
    /// `handler` receives from the raw response; one cancelled (or,
    /// defensively, abandoned) before completion gets the request as last
    /// sent, the head if one arrived, and the failure. `handler` runs on
    /// `queue`, or right there on the request's queue when `queue` is `nil`.
    ///
    /// The handler holds a request that was never started weakly: its
    /// lifetime stays its caller's business.
    func enqueueOutcome<Responder: OutcomeResponder>(
        on queue: DispatchQueue?,
        _ responder: Responder,
        _ handler: @escaping @Sendable (Responder.Response) -> Void,
        beforeResuming register: ((inout RequestStateMachine) -> Void)? = nil
    ) {
        let urlRequest = self.urlRequest
        enqueue(handlerOn: queue, of: responder) { state in
            register?(&state)
            OutcomeHandler.enqueue(
                for: self, started: state.startsWithHandlerOrStarted, after: state.tail, verdicts: state.verdictsForHandlers,
                built: urlRequest, queue: queue, responder: responder, handler: handler
            )
        }
    }

    /// Like ``enqueueOutcome(on:_:_:beforeResuming:)``, for a response
    /// serializer whose failure the retriers may retry the request for: the
    /// handler then waits, parked, and runs once, on the retried request's
    /// outcome. Handlers chained after it see that outcome too. Not
    /// `retryable` (a handler that is not a serializer's, as in Alamofire),
    /// or without anything that may retry, it is an ordinary handler.
    func enqueueRetryableOutcome<Responder: OutcomeResponder>(
        on queue: DispatchQueue?,
        retryable: Bool = true,
        _ responder: Responder,
        _ handler: @escaping @Sendable (Responder.Response) -> Void
    ) where Responder.Response: RetryableResponse {
        guard retryable, mayRetry else { return enqueueOutcome(on: queue, responder, handler) }
        let urlRequest = self.urlRequest
        // The retriers decide on the callback queue, and a retried outcome
        // is serialized where it arrives: the handler queue runs only the
        // serializer, as an ordinary handler's does, so the lane is chosen alike.
        enqueue(handlerOn: queue, of: responder) { state in
            // Counted until it passes: a `cancel()` meanwhile stops its retries.
            state.retryableHandlers += 1
            state.tail = RetryableHandler(
                request: self, after: state.tail, verdicts: state.verdictsForHandlers, built: urlRequest, queue: queue,
                responder: responder, handler: handler
            ).next
        }
    }

    /// Adds a handler under the lock (with the tail read and replaced in one
    /// place, handlers keep their order), telling the handler lane where it
    /// runs (nowhere in particular if the caller's code serializes), then
    /// starts the request if the handler does.
    private func enqueue<Responder: OutcomeResponder>(
        handlerOn queue: DispatchQueue?, of responder: Responder, _ add: (inout RequestStateMachine) -> Void
    ) {
        let work = responder.serializing
        let lane = work == .callersCode ? nil : queue
        addHandler { state in
            state.handlerLane.add(handlerOn: lane, growsWithBody: work != .handsBodyOver)
            add(&state)
        }
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
