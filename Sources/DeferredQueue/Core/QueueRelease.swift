/// What a deferred does to its queue when it settles: the one call that
/// lets the waiting handlers run.
@usableFromInline
enum QueueRelease: UInt8, Sendable {
    /// Nothing: the deferred was created settled, or shares its parent's
    /// queue (which the parent releases).
    case none
    /// The deferred created its queue suspended and resumes it.
    case resume
    /// The deferred created its queue inactive, so that what the queue
    /// targets can still be chosen (``Deferred/retarget(to:)``), and
    /// activates it.
    case activate
}
