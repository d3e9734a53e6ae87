import Synchronization

/// Per-input slots filled from several queues, without a lock.
///
/// Each slot is written once, by the handler of its own input, so writers
/// never share memory; the atomic countdown orders them: every fill releases,
/// and the fill that brings it to zero acquires all the others before it
/// reads the slots. (A `Mutex` around the slots made every input's handler
/// take the same lock from whichever worker thread ran it, so a large `all`
/// spent a good part of each input's cost spinning in the contended lock.)
///
/// Built with `-D DEFERREDQUEUE_REFERENCE`, the slots are an array behind a
/// `Mutex` (see the end of this file).
#if !DEFERREDQUEUE_REFERENCE
@usableFromInline
final class Slots<Element: Sendable>: Sendable {
    /// `count` slots, `nil` until filled. Slot `i` is written only by the
    /// handler of input `i`, and read only by the fill that completes the set.
    @usableFromInline nonisolated(unsafe) let elements: UnsafeMutablePointer<Element?>
    @usableFromInline let count: Int
    /// Slots not filled yet.
    @usableFromInline let remaining: Atomic<Int>

    @inlinable
    init(count: Int) {
        self.count = count
        elements = UnsafeMutablePointer.allocate(capacity: count)
        elements.initialize(repeating: nil, count: count)
        remaining = Atomic(count)
    }

    deinit {
        elements.deinitialize(count: count)
        elements.deallocate()
    }

    /// Stores `element` at `index`; returns every element, in input order,
    /// once the last slot is filled. Call it at most once per index.
    @inlinable
    func fill(_ index: Int, with element: Element) -> [Element]? {
        elements[index] = element
        guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return nil }
        return UnsafeBufferPointer(start: elements, count: count).compactMap { $0 }
    }
}
#else
@usableFromInline
final class Slots<Element: Sendable>: Sendable {
    @usableFromInline let elements: Mutex<[Element?]>

    @inlinable
    init(count: Int) {
        elements = Mutex(Array(repeating: nil, count: count))
    }

    @inlinable
    func fill(_ index: Int, with element: Element) -> [Element]? {
        elements.withLock { elements in
            elements[index] = element
            return elements.contains { $0 == nil } ? nil : elements.compactMap { $0 }
        }
    }
}
#endif
