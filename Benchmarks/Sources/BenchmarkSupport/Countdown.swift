import Dispatch
import Synchronization

/// Waits until `count` arrivals happened, from any threads.
///
/// Every peer of a scenario waits for its work with one of these, so the cost
/// of waiting is the same for all of them: one atomic decrement per arrival
/// and one semaphore signal when the last one arrives.
public final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let done = DispatchSemaphore(value: 0)

    public init(_ count: Int) {
        remaining = Atomic(count)
    }

    /// One of the expected arrivals; the last one wakes the waiter.
    public func arrive() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            done.signal()
        }
    }

    /// Blocks until every arrival happened.
    public func wait() {
        done.wait()
    }

    /// Suspends (without blocking a cooperative thread) until every arrival happened.
    public func waitAsync() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.done.wait()
                continuation.resume()
            }
        }
    }
}
