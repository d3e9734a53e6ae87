extension Deferred {
    /// Fulfils with the first input to be fulfilled; if all are rejected,
    /// rejects with ``DeferredError/allRejected(_:)`` holding every error in
    /// input order.
    ///
    /// Once one input is fulfilled, the others are released (cancelled if
    /// nothing else consumes them). An empty input rejects with
    /// `allRejected([])`.
    public static func any(_ inputs: [Deferred<Value>]) -> Deferred<Value> {
        if inputs.isEmpty { return Deferred(error: DeferredError.allRejected([])) }
        let errors = Slots<ErrorBox>(count: inputs.count)
        return .aggregate(inputs) { index, outcome in
            switch outcome {
            case .success:
                return outcome
            case .failure(let error):
                return errors.fill(index, with: ErrorBox(error)).map {
                    .failure(DeferredError.allRejected($0.map(\.error)))
                }
            }
        }
    }
}

/// Lets an error sit in a ``Slots`` (which needs a concrete element type).
struct ErrorBox: Sendable {
    let error: any Error
    init(_ error: any Error) { self.error = error }
}
