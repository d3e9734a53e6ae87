import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response serializer's handler whose failure may retry its request
/// (see `Request+Retrying`).
///
/// It runs in its turn on the request's handler queue. When the serializer
/// fails, it suspends that queue (from inside its block: the handlers after
/// it wait) and asks the retriers. To retry, the request reopens with this
/// handler parked in its state machine; the retried request's outcome
/// comes back here, the serializer runs again on it, and so on until a
/// response is delivered. Then ``next`` — the outcome the handlers after it
/// see — settles with the final attempt's outcome, and the queue resumes.
/// The handler runs exactly once, in its place in the chain.
final class RetryableHandler<Responder: OutcomeResponder>: Sendable where Responder.Response: RetryableResponse {
    /// What the handlers chained after this one see.
    let next: Deferred<RawResponse>
    /// Weak: something that waits on a request never started must not keep
    /// it. A settled request is kept alive until its handlers ran
    /// (`Request.keepAliveForHandlers()`). Unlike an ordinary handler, this
    /// one does not hold a started request strongly: it is made only when
    /// something may retry, off the usual path, where the side table a weak
    /// reference gives the request costs little.
    private weak let request: Request?
    private let built: URLRequest?
    /// How many validators' verdicts the handler applies itself
    /// (`RequestStateMachine.verdictsForHandlers` when it was added).
    private let verdicts: Int
    /// The request's handler queue, which this handler's turn runs on.
    private let handlerQueue: DispatchQueue
    private let queue: DispatchQueue?
    private let responder: Responder
    private let handler: @Sendable (Responder.Response) -> Void

    /// Chains the handler after `tail`; ``next`` is the new tail.
    init(
        request: Request, after tail: Deferred<RawResponse>, verdicts: Int, built: URLRequest?, queue: DispatchQueue?,
        responder: Responder, handler: @escaping @Sendable (Responder.Response) -> Void
    ) {
        next = tail.deriveShared()
        handlerQueue = tail.queue
        self.verdicts = verdicts
        self.request = request
        self.built = built
        self.queue = queue
        self.responder = responder
        self.handler = handler
        tail.whenSettled { outcome in self.run(on: outcome, queueWaits: false) }
    }

    /// Runs on `outcome`: in the queue's turn, or (`queueWaits`) on a
    /// retried request's outcome, off the queue, which waits meanwhile.
    private func run(on received: Result<RawResponse, any Error>, queueWaits: Bool) {
        let outcome = received.applyingVerdicts(of: verdicts)
        let request = self.request
        let response = responder.response(to: outcome, of: request, built: built)
        guard case .success = outcome, let error = response.error, Request.serializerFailureMayRetry(error), let request,
              !request.isOverdue
        else {
            deliver(response)
            return pass(outcome, queueWaits: queueWaits)
        }
        if !queueWaits { handlerQueue.suspend() }
        // Weak: the request holds this closure while it waits (for `cancel()`).
        let decided = request.awaitingRetryDecision { [weak request] decision in
            switch decision {
            case .retry(let seconds):
                if let request, request.reopen(after: seconds, parking: { self.run(on: $0, queueWaits: true) }) { return }
                self.deliver(response)
            case .doNotRetry:
                self.deliver(response)
            case .doNotRetryWithError(let retryError):
                self.deliver(response.replacingFailure(with: retryError))
            }
            self.pass(outcome, queueWaits: true)
        }
        // Cancelled since the handler was added: it has had the cancellation.
        guard let decide = decided else { return }
        // Retriers decide on the transport's callback queue, as for an
        // attempt's failure; none is asked once a `cancel()` (or the
        // deadline) ended the wait.
        request.callbackQueue.async {
            request.decideRetry(dueTo: error, while: { decide.isPending }) { decide($0) }
        }
    }

    private func deliver(_ response: Responder.Response) {
        guard let queue else { return handler(response) }
        queue.async { self.handler(response) }
    }

    /// Lets the handlers after this one see `outcome`.
    private func pass(_ outcome: Result<RawResponse, any Error>, queueWaits: Bool) {
        request?.retryableHandlerPassed()
        next.settle(outcome)
        if queueWaits { handlerQueue.resume() }
    }
}

/// A response whose failure (a response serializer's) the retriers may
/// retry its request for (see `Request+Retrying`): ``DataResponse`` and
/// ``DownloadResponse``.
protocol RetryableResponse: Sendable {
    /// The failure to put to the retriers, if any.
    var error: HTTPError? { get }
    /// The response with its failure replaced by a retrier's.
    func replacingFailure(with error: HTTPError) -> Self
}

extension DataResponse: RetryableResponse where Failure == HTTPError {
    func replacingFailure(with error: HTTPError) -> Self {
        mapError { _ in error }
    }
}

extension DownloadResponse: RetryableResponse where Failure == HTTPError {
    func replacingFailure(with error: HTTPError) -> Self {
        mapError { _ in error }
    }
}
