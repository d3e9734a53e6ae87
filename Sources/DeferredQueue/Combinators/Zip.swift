/// Fulfils with both values once both deferreds are fulfilled; rejects with
/// the first rejection (releasing the other input).
public func zip<A: Sendable, B: Sendable>(_ a: Deferred<A>, _ b: Deferred<B>) -> Deferred<(A, B)> {
    let inputs = [a.then { Either<A, B>.first($0) }, b.then { Either<A, B>.second($0) }]
    let slots = Slots<Either<A, B>>(count: 2)
    return .aggregate(inputs) { index, outcome in
        switch outcome {
        case .failure(let error):
            return .failure(error)
        case .success(let either):
            guard let both = slots.fill(index, with: either),
                  case .first(let first) = both[0], case .second(let second) = both[1]
            else { return nil }
            return .success((first, second))
        }
    }
}

/// Fulfils with all three values once all are fulfilled; rejects with the
/// first rejection.
public func zip<A: Sendable, B: Sendable, C: Sendable>(
    _ a: Deferred<A>, _ b: Deferred<B>, _ c: Deferred<C>
) -> Deferred<(A, B, C)> {
    zip(zip(a, b), c).then { pair in (pair.0.0, pair.0.1, pair.1) }
}

private enum Either<A: Sendable, B: Sendable>: Sendable {
    case first(A)
    case second(B)
}
