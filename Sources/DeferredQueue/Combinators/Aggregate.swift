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
    @usableFromInline let release: @Sendable (inout [any ConsumerLink]) -> Void

    @inlinable
    init<Value: Sendable>(_ inputs: [Deferred<Value>]) {
        for input in inputs { input.addConsumer() }
        // Only the pending ones (an `all` that succeeded has none), reversed:
        // the loop takes the last first, so the inputs give up in order.
        release = { work in
            for input in inputs.reversed() where input.isPending { work.append(input) }
        }
    }

    /// The aggregate no longer needs any input.
    @usableFromInline
    func consumerGaveUp(into work: inout [any ConsumerLink]) {
        release(&work)
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
