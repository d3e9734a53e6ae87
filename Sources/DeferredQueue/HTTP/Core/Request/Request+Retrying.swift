import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Retrying, as Alamofire decides it: every failure the retriers may see.
//
// - An attempt's failure — transport, adapter, a status ≥ 400, or a
//   validator's verdict — is decided on before the request finishes. The
//   validators chained so far judge each completed attempt (`judge`); the
//   verdicts travel with the outcome, so each handler chained after a
//   validator applies its verdict (and a validation step, for one chained
//   after an attempt was judged, applies its own) instead of judging again.
// - A response serializer's failure comes after the request finished and its
//   handler queue resumed. Its handler (a `RetryableHandler`) suspends that
//   queue from inside its block and asks the retriers. To retry, the request
//   reopens (`RequestStateMachine.reopen`) with the handler parked in the
//   state machine's one slot; the retried request's outcome goes to the
//   parked handler instead of the settled outcome, the handler runs again
//   on it, and the queue resumes. The queue stays the only storage of
//   handlers: later ones wait on it, and only ever see the final attempt.

/// A validator a data request judges each completed attempt with.
struct PipelineValidator: Sendable {
    let check: Request.RawValidation
    /// A check of the head alone (status, content type): judged on the
    /// transport's callback queue rather than moved to the handlers' queue.
    let inline: Bool
}

/// What the retriers decided about a failure.
enum RetryDecision: Sendable {
    case retry(after: Double)
    case doNotRetry
    /// A retrier failed: ``HTTPError/requestRetryFailed(retryError:originalError:)``.
    case doNotRetryWithError(HTTPError)
}

extension Request {
    /// Whether anything may retry this request: an interceptor or a retry policy.
    var mayRetry: Bool {
        core.retriesFailures || hasRequestInterceptors
    }

    // MARK: - Deciding

    /// Asks the retriers (the session's, then the request's) in order until
    /// one decides something other than `.doNotRetry`, then the session's
    /// ``RetryPolicy``. Each retrier's completion handler counts once; a
    /// cancelled request asks no further, nor does one whose wait for the
    /// decision ended (`isOpen` false: a finished request's serializer
    /// failure, see ``awaitingRetryDecision(_:)``). Nothing retries a
    /// finished request whose session is gone (as in Alamofire, whose
    /// request then has no delegate).
    func decideRetry(
        dueTo error: HTTPError, while isOpen: @escaping @Sendable () -> Bool = { true },
        _ decided: @escaping @Sendable (RetryDecision) -> Void
    ) {
        guard let session else { return decided(.doNotRetry) }
        ask(core.retriers(for: self)[...], about: error, session: session, while: isOpen, decided)
    }

    private func ask(
        _ retriers: ArraySlice<any RequestRetrier>, about error: HTTPError, session: Session,
        while isOpen: @escaping @Sendable () -> Bool, _ decided: @escaping @Sendable (RetryDecision) -> Void
    ) {
        guard let retrier = retriers.first else {
            if let policy = core.retryPolicy, let delay = policy.delay(for: self, dueTo: error) {
                return decided(Self.retry(after: delay))
            }
            return decided(.doNotRetry)
        }
        guard state != .cancelled, isOpen() else { return }
        let next = CompletionOnce<RetryResult> { result in
            switch result {
            case .retry: decided(.retry(after: 0))
            case .retryWithDelay(let seconds): decided(Self.retry(after: seconds))
            case .doNotRetryWithError(let retryError):
                decided(.doNotRetryWithError(.requestRetryFailed(retryError: retryError, originalError: error)))
            case .doNotRetry: self.ask(retriers.dropFirst(), about: error, session: session, while: isOpen, decided)
            }
        }
        retrier.retry(self, for: session, dueTo: error) { next($0) }
    }

    /// A retry after `seconds`; none when the delay is one no program
    /// outlives (infinite, or beyond ~30 years, a `Retry-After` of a
    /// billion seconds): waiting for it would leave the request hanging.
    private static func retry(after seconds: Double) -> RetryDecision {
        DispatchTime.after(seconds: seconds) == nil ? .doNotRetry : .retry(after: seconds)
    }

    /// Decides on a running request's failure: retries it, finishes with the
    /// retrier's error (naming `built` when no attempt was sent), or, when
    /// nobody retries, calls `otherwise`. A stream whose handlers were handed
    /// a chunk is not retried and no retrier is asked (one may have side
    /// effects): a retried attempt's body would follow the chunks they hold,
    /// a corrupted stream reported whole.
    func retryOrFinish(dueTo error: HTTPError, built: URLRequest? = nil, otherwise: @escaping @Sendable () -> Void) {
        guard !mutableState.withLock(owner: self, { $0.streamChunkHandedOver }) else { return otherwise() }
        decideRetry(dueTo: error) { decision in
            switch decision {
            case .retry(let seconds): self.scheduleRetry(after: seconds)
            case .doNotRetryWithError(let failure): self.finish(failingWith: failure, built: built)
            case .doNotRetry: otherwise()
            }
        }
    }

    /// Retries the running request after `seconds`.
    func scheduleRetry(after seconds: Double) {
        let action = mutableState.withLock(owner: self) { state in
            let action = state.retry()
            if case .scheduleRetry = action { eventMonitor?.requestIsRetrying(self) }
            return action
        }
        guard case .scheduleRetry = action else { return }
        prepareAgain(after: seconds)
    }

    /// Prepares the request's next attempt from scratch after `seconds`:
    /// from the request as built, or — for a request made from a
    /// ``URLRequestConvertible`` — from what it builds now (Alamofire calls
    /// `asURLRequest()` again for each retry, so a router that signs or
    /// stamps its requests signs the retry afresh).
    private func prepareAgain(after seconds: Double) {
        guard let urlRequest else { return }
        let deadline = DispatchTime.after(seconds: seconds) ?? .distantFuture
        // The state machine holds the timer (and through it the request)
        // until it fires or the request ends: ending takes and cancels it.
        let timer = OneShotTimer()
        let running = mutableState.withLock(owner: self) { state -> Bool in
            guard state.isRunning else { return false }
            state.retryDelay = timer
            return true
        }
        guard running else { return }
        timer.start(at: deadline, on: callbackQueue) {
            // Cancelled, so that the source lets go of this handler (and
            // the request); not this timer's turn when the request ended.
            timer.cancel()
            let due = self.mutableState.withLock(owner: self) { state -> Bool in
                guard state.retryDelay === timer else { return false }
                state.retryDelay = nil
                return true
            }
            guard due else { return }
            guard let convertible = self.madeFrom?.convertible, !(convertible is ResumedDownload) else {
                return self.prepareAttempt(from: urlRequest, timeoutIsAssigned: self.timeoutIsAssigned)
            }
            switch SessionCore.urlRequest(from: convertible) {
            case .success(let rebuilt): self.prepareAttempt(from: self.completingRebuilt(rebuilt), timeoutIsAssigned: false)
            case .failure(let error): self.finish(failingWith: error)
            }
        }
    }

    // MARK: - Validating before the decision

    /// Judges a completed attempt with the validators chained so far, up to
    /// the first failure, then decides: a failure (or a status ≥ 400) goes to
    /// the retriers, otherwise the request finishes. Checks of the head run
    /// here; any other validator moves the judging to the handlers' queue
    /// (validators may read a large body), and the decision comes back.
    func judge(_ completed: CompletedAttempt, response: ResponseHead) {
        let validators = completed.validators
        guard !validators.isEmpty else { return decide(completed, response: response, verdicts: nil) }
        guard validators.allSatisfy(\.inline) else {
            let callbackQueue = self.callbackQueue
            return handlerTargetQueue.async {
                let verdicts = self.verdicts(of: completed, response: response, by: validators)
                callbackQueue.async { self.decide(completed, response: response, verdicts: verdicts) }
            }
        }
        decide(completed, response: response, verdicts: verdicts(of: completed, response: response, by: validators))
    }

    /// Each validator's verdict, in order, up to the first failure; the
    /// monitors hear each.
    private func verdicts(
        of completed: CompletedAttempt, response: ResponseHead, by validators: [PipelineValidator]
    ) -> [ValidationResult] {
        let monitor = eventMonitor
        let raw = monitor.map { _ in
            RawResponse(request: completed.request, response: response, data: completed.data, error: nil, end: Date())
        }
        var verdicts: [ValidationResult] = []
        verdicts.reserveCapacity(validators.count)
        for validator in validators {
            let verdict = validator.check(completed.request, response, completed.data)
            verdicts.append(verdict)
            if let monitor, let raw { report(validation: verdict, of: raw, response: response, to: monitor) }
            if case .failure = verdict { break }
        }
        return verdicts
    }

    private func decide(_ completed: CompletedAttempt, response: ResponseHead, verdicts: [ValidationResult]?) {
        if case .failure(let error) = verdicts?.last {
            return decideAfterFailure(completed, error: Self.validationFailure(error), verdicts: verdicts)
        }
        if response.statusCode >= 400 {
            let error = HTTPError.responseValidationFailed(reason: .unacceptableStatusCode(code: response.statusCode))
            return decideAfterFailure(completed, error: error, verdicts: verdicts)
        }
        finish(with: completed, error: nil, verdicts: verdicts)
    }

    // MARK: - Retrying after a serializer failed

    /// Whether a serializer's `error` may go to the retriers: not when it is
    /// the request's own failure and the retriers already gave up on it
    /// (``HTTPError/requestRetryFailed(retryError:originalError:)``), nor a
    /// body over its limit, which a retry would only fetch again.
    static func serializerFailureMayRetry(_ error: HTTPError) -> Bool {
        switch error {
        case .requestRetryFailed, .responseTooLarge, .cancelled: return false
        default: return true
        }
    }

    /// Reopens the finished request to retry it after `seconds`, with
    /// `handler` parked until the retried request ends. `false` when it
    /// cannot be reopened: it was cancelled, something else is parked, it
    /// could not be built (nothing to send again), its session is gone, or
    /// the session's deadline for the request (``Session/resourceTimeout``,
    /// counted from its start) has passed.
    func reopen(after seconds: Double, parking handler: @escaping RequestStateMachine.ParkedHandler) -> Bool {
        guard urlRequest != nil, let session else { return false }
        let reopened = mutableState.withLock(owner: self) { state -> Bool in
            guard !registry.isOverdue(startedAt: state.startedAt), state.reopen(parking: handler, session: session) else { return false }
            // Under the lock, as when it first started (see `resume(_:)`).
            registry.insert(self, startedAt: state.startedAt)
            eventMonitor?.requestIsRetrying(self)
            return true
        }
        guard reopened else { return false }
        prepareAgain(after: seconds)
        return true
    }

    /// Whether the session's deadline for the request has passed: then
    /// ``reopen(after:parking:)`` refuses, and no retrier is asked (one that
    /// never answers would leave a request nothing can cancel any more).
    var isOverdue: Bool {
        // A request that never started (it could not be built) has no deadline running.
        mutableState.withLock(owner: self) { $0.startedAt != 0 && registry.isOverdue(startedAt: $0.startedAt) }
    }

    /// The function a finished request's retriers hand their decision on a
    /// response serializer's failure to: it passes the first decision to
    /// `decided`, and so does ``cancel()`` (``HTTPError/cancelled``) and the
    /// session's deadline for the request (`URLError.timedOut`, as for a
    /// running request), so that a retrier that never answers leaves no
    /// handler waiting for ever. `nil` when a `cancel()` came since the
    /// handler was added: then `decided` has had the cancellation, and no
    /// retrier is to be asked. Once it is no longer pending, no retrier is
    /// to be asked either: a `cancel()` or the deadline ended the wait.
    func awaitingRetryDecision(_ decided: @escaping @Sendable (RetryDecision) -> Void) -> CompletionOnce<RetryDecision>? {
        let timer = registry.hasDeadlines ? OneShotTimer() : nil
        let identity = WaitIdentity()
        let once = CompletionOnce<RetryDecision> { [weak self] decision in
            timer?.cancel()
            // Cleared after: a `cancel()` until then still stops a reopen it decided.
            decided(decision)
            guard let self else { return }
            self.mutableState.withLock(owner: self) { state in
                // Only this wait: the next handler's may have begun as `decided` let it run.
                if state.retryDecisionWait?.id == ObjectIdentifier(identity) { state.retryDecisionWait = nil }
            }
        }
        // The flag and the wait under one lock: a `cancel()` either came
        // before (and is seen here) or finds the wait to end.
        let startedAt = mutableState.withLock(owner: self) { state -> UInt64? in
            guard !state.cancelledRetryDecision else { return nil }
            state.retryDecisionWait = RetryDecisionWait(id: ObjectIdentifier(identity)) { once(.doNotRetryWithError(.cancelled)) }
            return state.startedAt
        }
        guard let startedAt else {
            once(.doNotRetryWithError(.cancelled))
            return nil
        }
        // A request that never started (it could not be built) has no deadline running.
        if let timer, startedAt != 0 {
            timer.start(at: DispatchTime(uptimeNanoseconds: registry.deadline(startedAt: startedAt)), on: callbackQueue) {
                once(.doNotRetryWithError(.sessionTaskFailed(URLError(.timedOut))))
            }
        }
        return once
    }

    /// A handler whose serializer's failure may retry the request, counted
    /// since it was added (`enqueueRetryableOutcome`), has passed: a
    /// ``cancel()`` until then kept it from asking the retriers, as
    /// Alamofire's request, not finished until its serializers are, would.
    func retryableHandlerPassed() {
        mutableState.withLock(owner: self) { state in
            // Each handler passes once; never a trap in a release build if not.
            assert(state.retryableHandlers > 0, "a retryable handler passed twice")
            state.retryableHandlers -= min(1, state.retryableHandlers)
            // The cancel was for the handlers chained before it: one chained
            // later may be retried, as after a cancel that came once they ran.
            if state.retryableHandlers == 0, state.cancelledRetryDecision { state.cancelledRetryDecision = false }
        }
    }

    /// Hands a reopened request's outcome to the handler parked on it, on
    /// the queue the (waiting) handler queue targets.
    func resumeParked(_ parked: @escaping RequestStateMachine.ParkedHandler, with outcome: Result<RawResponse, any Error>) {
        handlerTargetQueue.async { parked(outcome) }
    }
}

/// An object only one retry-decision wait holds: its identity.
private final class WaitIdentity: Sendable {}
