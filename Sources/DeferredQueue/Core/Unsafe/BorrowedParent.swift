extension Deferred {
    /// The outcome of the parent a `then` step's deferred holds as
    /// `upstream`, read through a borrowed reference: no retain and release.
    ///
    /// Why: casting the existential `upstream` to the parent's type (or
    /// `takeUnretainedValue()`) retains and releases the parent on every
    /// handler. The object pointer is the existential's first word, and
    /// `upstream` keeps the parent alive while the step's block runs.
    ///
    /// Only for a deferred made by ``init(sharing:step:)`` whose parent is a
    /// `Deferred<Parent>`, inside its step's block, while it is pending.
    /// Built with `-D DEFERREDQUEUE_REFERENCE`, a checked cast.
    @inlinable
    func parentOutcome<Parent: Sendable>(_: Parent.Type) -> Result<Parent, any Error> {
        #if DEFERREDQUEUE_REFERENCE
        guard let parent = upstream as? Deferred<Parent> else { preconditionFailure("a step's upstream is not its parent") }
        return parent.currentOutcome
        #else
        let address = unsafeBitCast(upstream, to: (UnsafeRawPointer?, UnsafeRawPointer?).self).0
        // `_withUnsafeGuaranteedRef`: `takeUnretainedValue()` retains and releases.
        return Unmanaged<Deferred<Parent>>.fromOpaque(address.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.currentOutcome }
        #endif
    }
}
