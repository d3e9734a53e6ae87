import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate queue of a ``URLSessionTransport``: the flow control
/// corelibs' URLSession lacks.
///
/// swift-corelibs-foundation hands each chunk libcurl delivers (16 KiB at
/// most, decoded) to the delegate queue with `addOperation`, on URLSession's
/// work queue, and never pauses libcurl. A server faster than the session —
/// above all a compression bomb, which libcurl inflates a hundredfold or
/// more per read — then queues chunks without bound before the session can
/// stop the transfer at its limit. This queue holds URLSession's work queue
/// back inside `addOperation` while ``pendingLimit`` events wait, so libcurl
/// stops reading and TCP slows the server down.
///
/// URLSession calls that wait for the work queue (creating, resuming and
/// cancelling tasks) must run inside ``withoutHoldingBack(_:)``, or the
/// delegate queue could wait for a work queue that waits for it; holding
/// back also gives up after ``longestHold`` seconds.
// `@unchecked Sendable`: OperationQueue is thread-safe, and everything this
// subclass adds (`pending`, `exemptions`) is guarded by `condition`.
final class DelegateOperationQueue: OperationQueue, @unchecked Sendable {
    /// Events (chunks of at most 16 KiB) that may wait before URLSession is held back.
    static let pendingLimit = 256
    /// The longest URLSession is held back for one event, in seconds.
    static let longestHold = 1.0

    private let condition = NSCondition()
    private var pending = 0
    private var exemptions = 0

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        // Only URLSession's own threads are held back, never the delegate queue itself.
        let holdsBack = DispatchQueue.getSpecific(key: URLSessionAttemptTask.delegateQueueKey) != ObjectIdentifier(self)
        condition.lock()
        if holdsBack {
            let deadline = Date(timeIntervalSinceNow: Self.longestHold)
            while pending >= Self.pendingLimit, exemptions == 0, condition.wait(until: deadline) {}
        }
        pending += 1
        condition.unlock()
        super.addOperation {
            block()
            self.condition.lock()
            self.pending -= 1
            self.condition.broadcast()
            self.condition.unlock()
        }
    }

    /// Runs `body`, a URLSession call that may wait for URLSession's work
    /// queue, while that queue is not held back.
    func withoutHoldingBack<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        exemptions += 1
        condition.broadcast()
        condition.unlock()
        defer {
            condition.lock()
            exemptions -= 1
            condition.unlock()
        }
        return try body()
    }
}
