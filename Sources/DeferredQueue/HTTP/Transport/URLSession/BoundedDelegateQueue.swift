import Foundation
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
/// On Apple platforms URLSession has flow control of its own: this is a plain
/// serial `OperationQueue` there.
final class BoundedDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: the state added here is `room`, a semaphore, and
    // `overdrafts`, an atomic (both thread-safe by themselves), and a
    // constant; OperationQueue guards its own state.

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
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        guard DispatchQueue.getSpecific(key: Self.runsCallbacks) != ObjectIdentifier(self) else { return super.addOperation(block) }
        guard room.wait(timeout: .now() + patience) == .success else {
            overdrafts.add(1, ordering: .relaxed)
            return super.addOperation(block)
        }
        super.addOperation(SlotOperation(block, holding: room))
    }
    #endif
}

#if canImport(FoundationNetworking)
/// A callback holding one slot of a ``BoundedDelegateQueue``, given back
/// once: when the callback has run (corelibs may keep a finished operation
/// alive for a while), or when the operation is dropped unrun.
///
/// An operation of its own rather than the block wrapped in another closure
/// for `addOperation(_:)`: corelibs' `BlockOperation` copies its blocks into
/// a fresh array every time it runs, for every chunk of every body.
private final class SlotOperation: Operation, @unchecked Sendable {
    // @unchecked: the state added here is two constants and `given`, an
    // atomic; Operation guards its own state.
    private let block: @Sendable () -> Void
    private let room: DispatchSemaphore
    private let given = Atomic<Bool>(false)

    init(_ block: @escaping @Sendable () -> Void, holding room: DispatchSemaphore) {
        self.block = block
        self.room = room
    }

    override func main() {
        block()
        giveBack()
    }

    private func giveBack() {
        if !given.exchange(true, ordering: .acquiringAndReleasing) { room.signal() }
    }

    deinit {
        giveBack()
    }
}
#endif
