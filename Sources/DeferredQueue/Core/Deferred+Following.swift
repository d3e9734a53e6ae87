// Adopting another deferred's outcome — the flattening `then` and `recover`
// — and the cycle check that keeps a deferred from waiting on itself.
//
// The check costs nothing on the hot path: a non-flattening step never
// adopts anything, so it never walks. Only `follow` walks, and it walks the
// `upstream` links that cancellation already keeps (no extra field, lock
// or allocation): while a deferred is pending, its upstream is the one
// deferred it waits on — the parent of a `then`, the source of a `timeout`,
// the deferred it follows. A walk from the adopted deferred that reaches the
// adopting one is a cycle.
//
// `follow` is inlinable, like the steps that call it, so that a flattening
// step is specialised in the caller's module instead of looking up generic
// metadata at run time; the walk is not (it is off the hot path).

import Synchronization

extension Deferred {
    /// Settles this deferred like `inner`, and makes `inner` the upstream
    /// that hears about cancellation from now on.
    ///
    /// If `inner` is this deferred, or waits on it through a chain of
    /// pending deferreds, nothing could ever settle either of them: this
    /// deferred is rejected with ``DeferredError/cycle`` instead, and every
    /// deferred of the loop then settles with that error as it follows.
    @inlinable
    func follow(_ inner: Deferred<Value>) {
        guard inner !== self else {
            settle(.failure(DeferredError.cycle))
            return
        }
        inner.addConsumer()
        let attached = withState { _ -> Bool in
            guard phase.load(ordering: .relaxed) == Phase.pending else { return false }
            upstream = inner
            return true
        }
        guard attached else {
            // Cancelled while the step was producing `inner`.
            inner.consumerGaveUp()
            return
        }
        // Checked after attaching, not before: when two steps adopt each other
        // at the same time, each stores its link under its own lock and then
        // reads the other's under that one's lock, so at least one of them
        // sees the whole loop. Not giving up on `inner`: it waits on this
        // deferred, so it settles with `.cycle` too rather than `.cancelled`.
        // A settled `inner` waits on nothing: one atomic load, no walk. Nor
        // can a loop pass through a deferred nothing waits on: whatever links
        // to this one counted itself as its consumer first (see `waitedOn`).
        if inner.isPending, waitedOn, inner.waits(on: self) {
            settle(.failure(DeferredError.cycle))
            return
        }
        inner.whenSettled { self.settle($0) }
    }

    /// Whether some pending deferred may link to this one, read after this
    /// one's own link was stored.
    ///
    /// Every link to a deferred (a `then`, a `timeout`, a `follow`) is made
    /// after counting a consumer, and the count drops only once that
    /// consumer settled and unlinked. With no consumer, nothing can close a
    /// loop through this deferred yet: the step that later links to it
    /// counts first and walks itself, and a walk that crosses this
    /// deferred's lock after the link above sees it. (If another step's walk
    /// crossed it before, the lock orders that step's count before this
    /// load, which then sees it.) So a chain of steps adopting one another
    /// innermost first, none with a consumer yet, walks nothing, instead of
    /// the whole chain below each step.
    @usableFromInline
    var waitedOn: Bool {
        // Between this deferred's link (stored under its lock) and the load:
        // of two steps each counting itself on the other and then reading
        // its own count, one sees the other's.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return consumers.load(ordering: .sequentiallyConsistent) > 0
    }

    /// Whether `target` is reachable from this deferred through the links of
    /// pending deferreds each waiting on the next (see
    /// ``ConsumerLink/awaitedLink``).
    ///
    /// A loop that does not pass through `target` (two other steps adopting
    /// each other, which their own checks report) ends the walk: Brent's
    /// cycle finding, with one anchor and no allocation. Aggregates (`all`,
    /// `race`…) wait on several links and end the walk too.
    @usableFromInline
    func waits(on target: AnyObject) -> Bool {
        var anchor: any ConsumerLink = self
        var current: any ConsumerLink = self
        var stepsSinceAnchor = 0
        var stride = 1
        while let next = current.awaitedLink {
            if next === target { return true }
            if next === anchor { return false }
            stepsSinceAnchor += 1
            if stepsSinceAnchor == stride {
                anchor = next
                stride *= 2
                stepsSinceAnchor = 0
            }
            current = next
        }
        return false
    }
}
