import LockSupport
import Synchronization

/// The monitors one request was given with `eventMonitor(_:)`, after its
/// session's: what ``Request/eventMonitor`` is once the first is added.
///
/// A box of its own rather than a field of the request's state machine:
/// events are told while the request's lock is held (so they are enqueued
/// in the order they happen), and reading the monitors there must not take
/// that lock again. This lock is a leaf: held only to read or replace the
/// composite, never while anything else is locked or called.
final class RequestMonitors: Sendable {
    private let combined: Mutex<CompositeEventMonitor>

    init(session: CompositeEventMonitor?) {
        combined = Mutex(CompositeEventMonitor(monitors: session?.monitors ?? []))
    }

    /// The session's monitors, then the request's, in the order added.
    var monitor: CompositeEventMonitor { combined.withLock(owner: self) { $0 } }

    func add(_ monitor: any EventMonitor) {
        combined.withLock(owner: self) { $0 = CompositeEventMonitor(monitors: $0.monitors + [monitor], queue: $0.queue) }
    }
}
