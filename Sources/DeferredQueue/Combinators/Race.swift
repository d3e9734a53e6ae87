extension Deferred {
    /// Settles like the first input to settle, fulfilled or rejected.
    ///
    /// The losers are released: those that nothing else consumes are
    /// cancelled. With no inputs nothing could ever settle the result, so it
    /// is rejected with ``DeferredError/abandoned``.
    public static func race(_ inputs: [Deferred<Value>]) -> Deferred<Value> {
        if inputs.isEmpty { return Deferred(error: DeferredError.abandoned) }
        return .aggregate(inputs) { _, outcome in outcome }
    }
}
