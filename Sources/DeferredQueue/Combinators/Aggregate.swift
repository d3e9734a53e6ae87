import Dispatch
import Synchronization

/// The machinery shared by the combinators that wait on several deferreds.
///
/// An aggregate is a pending deferred whose producer is its inputs' handlers.
/// It registers as a consumer of every input and, once it has settled (or is
/// cancelled), releases them all: an input that nobody else consumes is then
/// cancelled — the losers of a `race`, the rest of an `all` after the first
/// rejection.
@usableFromInline
final class InputGroup: ConsumerLink {
    @usableFromInline let release: @Sendable () -> Void

    @inlinable
    init<Value: Sendable>(_ inputs: [Deferred<Value>]) {
        for input in inputs { input.addConsumer() }
        release = { for input in inputs { input.consumerGaveUp() } }
    }

    /// The aggregate no longer needs any input.
    @usableFromInline
    func consumerGaveUp() {
        release()
    }
}

extension Deferred {
    /// Builds an aggregate over `inputs`: `onOutcome` is called once per input
    /// (on that input's handler queue) with its index and outcome, and returns
    /// the aggregate's outcome once it is decided, `nil` before.
    @inlinable
    static func aggregate<Input: Sendable>(
        _ inputs: [Deferred<Input>],
        _ onOutcome: @escaping @Sendable (Int, Result<Input, any Error>) -> Result<Value, any Error>?
    ) -> Deferred<Value> {
        let group = InputGroup(inputs)
        let aggregate = Deferred(pendingWithUpstream: group)
        for (index, input) in inputs.enumerated() {
            // `whenSettled` written out: one closure per input instead of
            // this one wrapped in the block `whenSettled` enqueues.
            input.queue.async {
                guard aggregate.isPending, let decided = onOutcome(index, input.currentOutcome) else { return }
                if aggregate.settle(decided) { group.consumerGaveUp() }
            }
        }
        return aggregate
    }
}

/// Per-input slots filled from several queues, without a lock.
///
/// Each slot is written once, by the handler of its own input, so writers
/// never share memory; the atomic countdown orders them: every fill releases,
/// and the fill that brings it to zero acquires all the others before it
/// reads the slots. (A `Mutex` around the slots made every input's handler
/// take the same lock from whichever worker thread ran it, so a large `all`
/// spent a good part of each input's cost spinning in the contended lock.)
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
