import LockSupport
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
            input.whenSettled { outcome in
                guard aggregate.isPending, let decided = onOutcome(index, outcome) else { return }
                if aggregate.settle(decided) { group.consumerGaveUp() }
            }
        }
        return aggregate
    }
}

/// Per-input slots filled from several queues, guarded by one mutex.
@usableFromInline
final class Slots<Element: Sendable>: Sendable {
    @usableFromInline
    struct Storage {
        @usableFromInline var elements: [Element?]
        @usableFromInline var remaining: Int

        @inlinable
        init(elements: [Element?], remaining: Int) {
            self.elements = elements
            self.remaining = remaining
        }
    }

    @usableFromInline let storage: Mutex<Storage>

    @inlinable
    init(count: Int) {
        storage = Mutex(Storage(elements: Array(repeating: nil, count: count), remaining: count))
    }

    /// Stores `element` at `index`; returns every element, in input order,
    /// once the last slot is filled.
    @inlinable
    func fill(_ index: Int, with element: Element) -> [Element]? {
        storage.withLock(owner: self) { storage -> [Element]? in
            guard storage.elements[index] == nil else { return nil }
            storage.elements[index] = element
            storage.remaining -= 1
            guard storage.remaining == 0 else { return nil }
            return storage.elements.compactMap { $0 }
        }
    }
}
