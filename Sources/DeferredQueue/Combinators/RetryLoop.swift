import LockSupport
import Synchronization

/// One retry loop (see ``Deferred/retry(attempts:delay:backoff:maximumDelay:when:_:)``).
///
/// Holds the resolver, so the result is abandoned if the loop is dropped,
/// and the attempt in flight or the wait in progress, so cancelling the
/// result reaches it.
final class RetryLoop<Value: Sendable>: Sendable {
    private struct Progress {
        var attemptsLeft: Int
        var backoff: RetryBackoff
        var inFlight: Deferred<Value>?
        var cancelWait: (@Sendable () -> Void)?
    }

    private let resolver: Resolver<Value>
    private let shouldRetry: @Sendable (any Error) -> Bool
    private let wait: RetryBackoff.Wait
    private let make: @Sendable () -> Deferred<Value>
    /// Everything that changes, guarded together.
    private let progress: Mutex<Progress>

    init(
        resolver: Resolver<Value>,
        attempts: Int,
        backoff: RetryBackoff,
        shouldRetry: @escaping @Sendable (any Error) -> Bool,
        wait: @escaping RetryBackoff.Wait,
        make: @escaping @Sendable () -> Deferred<Value>
    ) {
        self.resolver = resolver
        self.shouldRetry = shouldRetry
        self.wait = wait
        self.make = make
        self.progress = Mutex(Progress(attemptsLeft: attempts, backoff: backoff))
    }

    func start() {
        resolver.onCancel { [weak self] in self?.stop() }
        attempt()
    }

    /// The result was cancelled: cancel what is in progress.
    private func stop() {
        let (attempt, cancelWait) = progress.withLock(owner: self) { progress in
            defer { progress.inFlight = nil; progress.cancelWait = nil }
            return (progress.inFlight, progress.cancelWait)
        }
        attempt?.cancel()
        cancelWait?()
    }

    private func attempt() {
        guard resolver.isPending else { return }
        let attempt = make()
        let isLast = progress.withLock(owner: self) { progress -> Bool in
            progress.attemptsLeft -= 1
            progress.inFlight = attempt
            progress.cancelWait = nil
            return progress.attemptsLeft <= 0
        }
        // Cancelled while `make` ran: `stop` saw no attempt in flight.
        if !resolver.isPending { attempt.cancel() }
        attempt.whenSettled { outcome in self.attemptSettled(outcome, wasLast: isLast) }
    }

    private func attemptSettled(_ outcome: Result<Value, any Error>, wasLast: Bool) {
        guard case .failure(let error) = outcome, !wasLast, !error.isCancellation,
              resolver.isPending, shouldRetry(error)
        else {
            resolver.resolve(outcome)
            return
        }
        let (seconds, attemptsLeft) = progress.withLock(owner: self) { progress -> (Double, Int) in
            progress.inFlight = nil
            return (progress.backoff.next(), progress.attemptsLeft)
        }
        let cancelWait = wait(seconds) { self.attempt() }
        // Stored only while pending, under the lock `stop` takes it with:
        // a cancellation that came first (and found no wait) leaves it to
        // this call, one that comes later to `stop` — once either way. And
        // only while no attempt began since: a wait that fired already
        // (a zero delay) must not replace the next attempt's wait.
        let cancelledMeanwhile = progress.withLock(owner: self) { progress -> Bool in
            guard resolver.isPending else { return true }
            if progress.attemptsLeft == attemptsLeft { progress.cancelWait = cancelWait }
            return false
        }
        if cancelledMeanwhile { cancelWait() }
    }
}
