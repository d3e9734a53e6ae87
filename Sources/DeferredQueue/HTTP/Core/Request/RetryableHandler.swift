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
final class RetryableHandler<Response: Sendable>: Sendable {
    /// What the handlers chained after this one see.
    let next: Deferred<RawResponse>
    /// Weak, as every handler's: something that waits on a request never
    /// started must not keep it. A settled request is kept alive until its
    /// handlers ran (`Request.keepAliveForHandlers()`).
    private weak let request: Request?
    private let built: URLRequest?
    /// The request's handler queue, which this handler's turn runs on.
    private let handlerQueue: DispatchQueue
    private let queue: DispatchQueue?
    private let make: @Sendable (RawResponse, Bool) -> Response
    private let failure: @Sendable (Response) -> HTTPError?
    private let replacingFailure: @Sendable (Response, HTTPError) -> Response
    private let handler: @Sendable (Response) -> Void

    /// Chains the handler after `tail`; ``next`` is the new tail.
    init(
        request: Request, after tail: Deferred<RawResponse>, built: URLRequest?, queue: DispatchQueue?,
        make: @escaping @Sendable (RawResponse, Bool) -> Response,
        failure: @escaping @Sendable (Response) -> HTTPError?,
        replacingFailure: @escaping @Sendable (Response, HTTPError) -> Response,
        handler: @escaping @Sendable (Response) -> Void
    ) {
        next = tail.deriveShared()
        handlerQueue = tail.queue
        self.request = request
        self.built = built
        self.queue = queue
        self.make = make
        self.failure = failure
        self.replacingFailure = replacingFailure
        self.handler = handler
        tail.whenSettled { outcome in self.run(on: outcome, queueWaits: false) }
    }

    /// Runs on `outcome`: in the queue's turn, or (`queueWaits`) on a
    /// retried request's outcome, off the queue, which waits meanwhile.
    private func run(on outcome: Result<RawResponse, any Error>, queueWaits: Bool) {
        guard case .success(let raw) = outcome else {
            if case .failure(let error) = outcome {
                deliver(make(Request.unsettled(error, of: request, built: built), false))
            }
            return pass(outcome, queueWaits: queueWaits)
        }
        let response = make(raw, true)
        guard let error = failure(response), Request.serializerFailureMayRetry(error), let request else {
            deliver(response)
            return pass(outcome, queueWaits: queueWaits)
        }
        if !queueWaits { handlerQueue.suspend() }
        // Retriers decide on the transport's callback queue, as for an attempt's failure.
        request.callbackQueue.async {
            request.decideRetry(dueTo: error) { decision in
                switch decision {
                case .retry(let seconds):
                    if request.reopen(after: seconds, parking: { self.run(on: $0, queueWaits: true) }) { return }
                    self.deliver(response)
                case .doNotRetry:
                    self.deliver(response)
                case .doNotRetryWithError(let retryError):
                    self.deliver(self.replacingFailure(response, retryError))
                }
                self.pass(outcome, queueWaits: true)
            }
        }
    }

    private func deliver(_ response: Response) {
        guard let queue else { return handler(response) }
        queue.async { self.handler(response) }
    }

    /// Lets the handlers after this one see `outcome`.
    private func pass(_ outcome: Result<RawResponse, any Error>, queueWaits: Bool) {
        next.settle(outcome)
        if queueWaits { handlerQueue.resume() }
    }
}
