/// A response serializer's wait for the retriers' decision on its failure,
/// on a finished request: what `cancel()` calls to end it, and which wait
/// it is, so that a wait that ends clears only itself (the next
/// handler's may have begun meanwhile).
struct RetryDecisionWait: Sendable {
    /// The wait's identity: an object only it holds.
    let id: ObjectIdentifier
    /// Ends the wait with a cancellation.
    let abandon: @Sendable () -> Void
}
