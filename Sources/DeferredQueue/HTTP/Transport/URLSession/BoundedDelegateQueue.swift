import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession transport's delegate queue: on Linux, an `OperationQueue`
/// that holds URLSession's work queue back while too many callbacks wait.
///
/// swift-corelibs-foundation reads from libcurl on the session's work queue
/// and hands every chunk it decodes to the delegate queue with
/// `addOperation(_:)`; it never pauses libcurl. When the delegate queue falls
/// behind (a loaded machine, a compression bomb inflating at memory speed),
/// the queued chunks pile up without bound. Waiting in `addOperation(_:)`
/// until the backlog drains keeps libcurl from reading, so TCP flow control
/// pushes back on the server instead and the queued chunks stay under
/// `capacity` callbacks (libcurl's 16 KiB each).
///
/// Callbacks must never wait for the work queue (``URLSessionAttemptTask``
/// cancels from another queue for this reason). Should one do so anyway
/// (corelibs creates and resumes tasks there synchronously), a wait ends after
/// `patience` and that one callback is queued beyond `capacity`: a deadlock
/// becomes a delay of `patience` per callback until it resolves, never a hang.
/// Every callback waits its own patience: a delegate queue that is merely
/// slow (a file write held up by the kernel's writeback) must not open the
/// gate for good, or an endless body fills memory at the speed of loopback.
/// Callbacks enqueued from the delegate queue itself never wait.
///
/// The callbacks wait in a list of this queue's own and run in order, all
/// those waiting at once, in one operation: corelibs' `OperationQueue` costs
/// more per operation than a chunk's own handling, and a large body is a
/// callback per chunk. What queues up while the callbacks run waits for the
/// next operation, so other work on the queue gets its turn.
///
/// On Apple platforms URLSession has flow control of its own: this is a plain
/// serial `OperationQueue` there.
final class BoundedDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: the state added here is `backlog`, behind its one lock,
    // `room`, a semaphore, and `overdrafts`, an atomic (both thread-safe by
    // themselves), and a constant; OperationQueue guards its own state.

    /// A free slot for one more queued callback.
    private let room: DispatchSemaphore
    /// Callbacks queued beyond `capacity` after their wait for a slot timed out.
    let overdrafts = Atomic<Int>(0)
    private let patience: DispatchTimeInterval

    /// - Parameters:
    ///   - queue: The serial queue the callbacks run on.
    ///   - capacity: The most callbacks queued before URLSession waits.
    ///   - patience: The longest URLSession waits for a slot.
    init(runningOn queue: DispatchQueue, capacity: Int = 256, patience: DispatchTimeInterval = .milliseconds(100)) {
        room = DispatchSemaphore(value: capacity)
        self.patience = patience
        super.init()
        maxConcurrentOperationCount = 1
        name = "DeferredQueue.URLSessionTransport.delegate"
        underlyingQueue = queue
        queue.setSpecific(key: Self.runsCallbacks, value: ObjectIdentifier(self))
    }

    /// Marks the queue the callbacks run on.
    private static let runsCallbacks = DispatchSpecificKey<ObjectIdentifier>()

    #if canImport(FoundationNetworking)
    /// Callbacks waiting to run, in the order they were added, and whether
    /// an operation that runs them is queued.
    private let backlog = Mutex<Backlog>(Backlog())

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        let holdsSlot: Bool
        if DispatchQueue.getSpecific(key: Self.runsCallbacks) == ObjectIdentifier(self) {
            holdsSlot = false
        } else if room.wait(timeout: .now() + patience) == .success {
            holdsSlot = true
        } else {
            overdrafts.add(1, ordering: .relaxed)
            holdsSlot = false
        }
        let schedules = backlog.withLock(owner: self) { $0.append(Callback(run: block, holdsSlot: holdsSlot)) }
        if schedules { super.addOperation(BacklogRun(self)) }
    }

    /// Runs the callbacks waiting now, then queues another run if more
    /// came meanwhile, so that other work on the queue gets its turn.
    fileprivate func runBacklog() {
        var batch = backlog.withLock(owner: self) { $0.take() }
        batch.reverse()
        // Each callback released as it runs: a chunk's memory is not kept for the batch.
        while let callback = batch.popLast() {
            callback.run()
            if callback.holdsSlot { room.signal() }
        }
        if backlog.withLock(owner: self, { $0.continues() }) { super.addOperation(BacklogRun(self)) }
    }

    /// Drops the callbacks waiting, giving their slots back: the run that
    /// was to run them was cancelled or dropped unrun.
    fileprivate func dropBacklog() {
        let dropped = backlog.withLock(owner: self) { $0.drop() }
        for callback in dropped where callback.holdsSlot { room.signal() }
    }
    #endif
}

#if canImport(FoundationNetworking)
/// One queued callback: the block, and whether it holds a slot of ``BoundedDelegateQueue/room``.
private struct Callback {
    let run: @Sendable () -> Void
    let holdsSlot: Bool
}

/// The callbacks of a ``BoundedDelegateQueue`` not yet run, first in first
/// out, and whether a run of them is queued.
private struct Backlog {
    private var callbacks: [Callback] = []
    private var scheduled = false

    /// Adds a callback; `true` when no run is queued, so the caller must queue one.
    mutating func append(_ callback: Callback) -> Bool {
        callbacks.append(callback)
        defer { scheduled = true }
        return !scheduled
    }

    /// Every callback waiting, oldest first.
    mutating func take() -> [Callback] {
        defer { callbacks = [] }
        return callbacks
    }

    /// Every callback waiting, oldest first, when the run that was to run
    /// them will not: the next callback added schedules a run of its own.
    mutating func drop() -> [Callback] {
        defer { scheduled = false }
        return take()
    }

    /// Whether callbacks wait after a run (another run then stays scheduled).
    mutating func continues() -> Bool {
        if callbacks.isEmpty { scheduled = false }
        return scheduled
    }
}

/// An operation that runs a ``BoundedDelegateQueue``'s waiting callbacks,
/// or, cancelled or dropped before it started, drops them and gives their
/// slots back (they were queued when it was, or while it waited).
///
/// So `cancelAllOperations()` drops the callbacks that wait for a run not yet
/// started; a run already started finishes its batch. Neither corelibs nor
/// the transport cancels the delegate queue's operations.
private final class BacklogRun: Operation, @unchecked Sendable {
    // @unchecked: the state added here is a constant and `phase`, an atomic;
    // Operation guards its own state.
    private let queue: BoundedDelegateQueue
    /// 0 waiting, 1 started, 2 dropped.
    private let phase = Atomic<Int>(0)

    init(_ queue: BoundedDelegateQueue) {
        self.queue = queue
    }

    override func main() {
        guard phase.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return }
        queue.runBacklog()
    }

    override func cancel() {
        super.cancel()
        drop()
    }

    private func drop() {
        if phase.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged { queue.dropBacklog() }
    }

    deinit {
        drop()
    }
}
#endif
