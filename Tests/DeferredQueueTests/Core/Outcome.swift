import Dispatch
@testable import DeferredQueue
import TestSupport

/// What a deferred settled with, reduced to something `#expect` can compare.
enum Outcome<Value: Sendable & Equatable>: Equatable, Sendable {
    case value(Value)
    case error(TestError)
    case cancelled
    case abandoned
    case timedOut
    case other(String)

    init(_ result: Result<Value, any Error>) {
        switch result {
        case .success(let value): self = .value(value)
        case .failure(let error as TestError): self = .error(error)
        case .failure(DeferredError.cancelled): self = .cancelled
        case .failure(DeferredError.abandoned): self = .abandoned
        case .failure(DeferredError.timedOut): self = .timedOut
        case .failure(let error): self = .other("\(error)")
        }
    }
}

/// Waits for `deferred` to settle (without registering as a consumer that
/// could cancel it) and returns its outcome; `nil` if it did not settle
/// within the guard deadline.
func settled<Value: Sendable & Equatable>(
    _ deferred: Deferred<Value>, within seconds: Double = 120
) async -> Outcome<Value>? {
    let latch = Latch()
    let box = Recorder<Outcome<Value>>()
    deferred.whenSettled { result in
        box.append(Outcome(result))
        latch.arrive()
    }
    guard await latch.wait(seconds: seconds) else { return nil }
    return box.events.first
}
