import LockSupport
import Synchronization

/// A continuation resumed by the first of several calls: a closure that
/// calls its completion twice must not crash the process.
final class ResumeOnce<Value: Sendable, Failure: Error>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Failure>?>

    init(_ continuation: CheckedContinuation<Value, Failure>) {
        self.continuation = Mutex(continuation)
    }

    func resume(with result: sending Result<Value, Failure>) {
        continuation.withLock(owner: self) { $0.take() }?.resume(with: result)
    }
}

/// A completion handler that runs for the first of several calls: an
/// interceptor that calls its completion twice must not run the next step twice.
final class CompletionOnce<Value: Sendable>: Sendable {
    private let completion: Mutex<(@Sendable (Value) -> Void)?>

    init(_ completion: @escaping @Sendable (Value) -> Void) {
        self.completion = Mutex(completion)
    }

    func callAsFunction(_ value: Value) {
        completion.withLock(owner: self) { $0.take() }?(value)
    }

    /// Whether no call came yet.
    var isPending: Bool {
        completion.withLock(owner: self) { $0 != nil }
    }
}
