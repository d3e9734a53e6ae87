import Dispatch
import LockSupport
import Synchronization

extension Deferred {
    /// Runs `make` until a deferred it returns is fulfilled, at most `attempts`
    /// times, waiting `delay` seconds between attempts.
    ///
    /// Rejects with the last attempt's error. Stops early when an attempt is
    /// cancelled. Cancelling the result cancels the attempt in flight and
    /// starts no other.
    ///
    /// - Parameters:
    ///   - attempts: The most attempts to make; values below 1 count as 1.
    ///   - delay: Seconds between a rejection and the next attempt.
    ///   - make: Starts one attempt. Called on the previous attempt's handler
    ///     queue (the first time, on the caller's thread).
    public static func retry(
        attempts: Int,
        delay: Double = 0,
        _ make: @escaping @Sendable () -> Deferred<Value>
    ) -> Deferred<Value> {
        let (result, resolver) = Deferred.pending()
        Retrier(resolver: resolver, attemptsLeft: max(1, attempts), delay: delay, make: make).start()
        return result
    }
}

/// One retry loop. Holds the resolver (so the result is abandoned if the loop
/// is dropped) and the attempt in flight (so cancelling reaches it).
private final class Retrier<Value: Sendable>: Sendable {
    private let resolver: Resolver<Value>
    private let delay: Double
    private let make: @Sendable () -> Deferred<Value>
    /// The attempts left and the one in flight, guarded together.
    private let progress: Mutex<(left: Int, inFlight: Deferred<Value>?)>

    init(resolver: Resolver<Value>, attemptsLeft: Int, delay: Double, make: @escaping @Sendable () -> Deferred<Value>) {
        self.resolver = resolver
        self.delay = delay
        self.make = make
        self.progress = Mutex((attemptsLeft, nil))
    }

    func start() {
        resolver.onCancel { [weak self] in
            guard let self else { return }
            self.progress.withLock(owner: self) { $0.inFlight }?.cancel()
        }
        attempt()
    }

    private func attempt() {
        guard resolver.isPending else { return }
        let attempt = make()
        let isLast = progress.withLock(owner: self) { progress -> Bool in
            progress.left -= 1
            progress.inFlight = attempt
            return progress.left <= 0
        }
        // Cancelled while `make` ran: the hook saw no attempt in flight.
        if !resolver.isPending { attempt.cancel() }
        attempt.whenSettled { outcome in
            switch outcome {
            case .failure(let error) where !isLast && !error.isDeferredCancellation:
                let deadline = DispatchTime.after(seconds: self.delay) ?? .distantFuture
                DispatchQueue.global().asyncAfter(deadline: deadline) { self.attempt() }
            default:
                self.resolver.resolve(outcome)
            }
        }
    }
}
