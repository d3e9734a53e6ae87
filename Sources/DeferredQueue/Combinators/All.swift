extension Deferred {
    /// Fulfils with every input's value, in input order, once all are fulfilled;
    /// rejects with the first rejection.
    ///
    /// After the first rejection, inputs that nothing else consumes are
    /// cancelled. Cancelling the result cancels them too. An empty input
    /// fulfils with `[]`.
    @inlinable
    public static func all(_ inputs: [Deferred<Value>]) -> Deferred<[Value]> {
        if inputs.isEmpty { return Deferred<[Value]>(value: []) }
        let slots = Slots<Value>(count: inputs.count)
        return .aggregate(inputs) { index, outcome in
            switch outcome {
            case .success(let value): return slots.fill(index, with: value).map { .success($0) }
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// Fulfils, once every input has settled, with each input's outcome in
    /// input order. Never rejects (unless cancelled).
    @inlinable
    public static func allSettled(_ inputs: [Deferred<Value>]) -> Deferred<[Result<Value, any Error>]> {
        if inputs.isEmpty { return Deferred<[Result<Value, any Error>]>(value: []) }
        let slots = Slots<Result<Value, any Error>>(count: inputs.count)
        return .aggregate(inputs) { index, outcome in
            slots.fill(index, with: outcome).map { .success($0) }
        }
    }
}
