import Dispatch
import LockSupport
import Synchronization

extension Deferred {
    /// Runs `make` until a deferred it returns is fulfilled, at most `attempts`
    /// times, waiting `delay` seconds between attempts.
    ///
    /// The same as ``retry(attempts:delay:backoff:maximumDelay:when:_:)``
    /// with a constant delay and every error but a cancellation retried.
    ///
    /// - Parameters:
    ///   - attempts: The most attempts to make; values below 1 count as 1.
    ///   - delay: Seconds between a rejection and the next attempt; negative
    ///     or NaN counts as zero.
    ///   - make: Starts one attempt. Called on the caller's thread the first
    ///     time, later on a global queue.
    /// - Returns: A deferred fulfilled like the first attempt that is
    ///   fulfilled, or rejected with the last attempt's error.
    public static func retry(
        attempts: Int,
        delay: Double = 0,
        _ make: @escaping @Sendable () -> Deferred<Value>
    ) -> Deferred<Value> {
        retry(attempts: attempts, delay: delay, when: { _ in true }, make)
    }

    /// Runs `make` until a deferred it returns is fulfilled, at most
    /// `attempts` times, with exponential backoff between attempts and a
    /// predicate that decides which errors are worth another attempt.
    ///
    /// ```swift
    /// let page = Deferred.retry(attempts: 5, delay: 0.2, backoff: 2, maximumDelay: 5,
    ///                           when: { ($0 as? HTTPError)?.isTimeout ?? false }) {
    ///     session.request(url).serializingString()
    /// }
    /// ```
    ///
    /// After the *n*-th rejection (counting from 0) the next attempt starts
    /// `min(delay × backoffⁿ, maximumDelay)` seconds later: with `delay: 0.2,
    /// backoff: 2, maximumDelay: 5` the waits are 0.2, 0.4, 0.8, 1.6, 3.2, 5, 5…
    ///
    /// The result rejects with the error of the attempt that ended the loop:
    /// the last one, one that `shouldRetry` declined, or a cancellation
    /// (never retried: an attempt rejected with ``DeferredError/cancelled``,
    /// `CancellationError` or a cancelled ``CancellableError`` ends the loop
    /// without asking `shouldRetry`). Cancelling the result cancels the
    /// attempt in flight or the wait before the next one; no attempt starts
    /// after that.
    ///
    /// - Parameters:
    ///   - attempts: The most attempts to make; values below 1 count as 1.
    ///   - delay: Seconds between the first rejection and the second attempt;
    ///     negative or NaN counts as zero.
    ///   - backoff: The factor by which each wait exceeds the one before;
    ///     negative or NaN counts as 1 (a constant delay).
    ///   - maximumDelay: The longest wait; NaN counts as `.infinity`.
    ///   - shouldRetry: Called with the error of each rejected attempt that
    ///     has attempts left after it (cancellations excluded), on that
    ///     attempt's handler queue; `true` makes another attempt.
    ///   - make: Starts one attempt. Called on the caller's thread the first
    ///     time, later on a global queue.
    /// - Returns: A deferred fulfilled like the first attempt that is
    ///   fulfilled, or rejected as described above.
    public static func retry(
        attempts: Int,
        delay: Double = 0,
        backoff: Double = 1,
        maximumDelay: Double = .infinity,
        when shouldRetry: @escaping @Sendable (any Error) -> Bool,
        _ make: @escaping @Sendable () -> Deferred<Value>
    ) -> Deferred<Value> {
        retry(
            attempts: attempts, delay: delay, backoff: backoff, maximumDelay: maximumDelay,
            when: shouldRetry, waiting: RetryBackoff.timer, make
        )
    }

    /// ``retry(attempts:delay:backoff:maximumDelay:when:_:)`` with the wait
    /// between attempts made by `wait` (the seam tests use to record the
    /// delays without sleeping).
    static func retry(
        attempts: Int,
        delay: Double,
        backoff: Double,
        maximumDelay: Double,
        when shouldRetry: @escaping @Sendable (any Error) -> Bool,
        waiting wait: @escaping RetryBackoff.Wait,
        _ make: @escaping @Sendable () -> Deferred<Value>
    ) -> Deferred<Value> {
        let (result, resolver) = Deferred.pending()
        let backoff = RetryBackoff(delay: delay, factor: backoff, maximum: maximumDelay)
        RetryLoop(
            resolver: resolver, attempts: max(1, attempts), backoff: backoff,
            shouldRetry: shouldRetry, wait: wait, make: make
        ).start()
        return result
    }
}

/// The waits between retry attempts: `delay × factorⁿ`, capped.
struct RetryBackoff: Sendable {
    /// Calls `fire` after `seconds` and returns a closure that cancels the
    /// wait (after which `fire` is not called). The loop calls it at most
    /// once.
    typealias Wait = @Sendable (_ seconds: Double, _ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void

    /// `delay × factorⁿ` before the cap, for the next wait.
    private var uncapped: Double
    private let factor: Double
    private let maximum: Double

    init(delay: Double, factor: Double, maximum: Double) {
        uncapped = delay.isNaN || delay < 0 ? 0 : delay
        self.factor = factor.isNaN || factor < 0 ? 1 : factor
        self.maximum = maximum.isNaN ? .infinity : max(0, maximum)
    }

    /// The next wait in seconds; advances to the one after.
    mutating func next() -> Double {
        let seconds = min(uncapped, maximum)
        uncapped *= factor
        // 0 × ∞ (a zero delay with an overflowing factor) stays zero.
        if uncapped.isNaN { uncapped = 0 }
        return seconds
    }

    /// The real wait: `asyncAfter` on a global queue. Cancelling releases
    /// `fire` at once (only a small empty box waits for the deadline), so a
    /// cancelled retry keeps nothing alive.
    static let timer: Wait = { seconds, fire in
        let shot = OneShot(fire)
        // An infinite wait is never scheduled: only cancelling ends it.
        if let deadline = DispatchTime.after(seconds: seconds) {
            DispatchQueue.global().asyncAfter(deadline: deadline) { shot.take()?() }
        }
        return { _ = shot.take() }
    }
}

/// A closure that can be taken once, by firing or by cancelling.
private final class OneShot: Sendable {
    /// Guards the closure until it is taken.
    private let closure: Mutex<(@Sendable () -> Void)?>

    init(_ closure: @escaping @Sendable () -> Void) {
        self.closure = Mutex(closure)
    }

    func take() -> (@Sendable () -> Void)? {
        closure.withLock(owner: self) { closure in
            defer { closure = nil }
            return closure
        }
    }
}
