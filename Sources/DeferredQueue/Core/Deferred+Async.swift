import LockSupport
import Synchronization

extension Deferred {
    /// Creates a deferred settled by an async operation running in a new
    /// unstructured `Task`.
    ///
    /// Cancelling the deferred cancels the task; the operation sees it as
    /// ordinary Swift task cancellation.
    ///
    /// - Parameters:
    ///   - priority: The task's priority.
    ///   - operation: Its return value fulfils the deferred; an error it throws
    ///     rejects it.
    public convenience init(
        priority: TaskPriority? = nil,
        operation: @escaping @Sendable () async throws -> Value
    ) {
        self.init(pendingWithUpstream: nil)
        let resolver = Resolver(self)
        let task = Task(priority: priority) {
            do {
                resolver.fulfill(try await operation())
            } catch {
                resolver.reject(error)
            }
        }
        resolver.onCancel { task.cancel() }
    }

    /// The fulfilled value, awaited.
    ///
    /// Cancelling the awaiting `Task` cancels the deferred, and this throws
    /// ``DeferredError/cancelled`` (unless the deferred had settled already)
    /// — except on a `serializing…` bridge made with
    /// `automaticallyCancelling: false`, which the awaiter keeps waiting for.
    ///
    /// - Throws: The error the deferred was rejected with.
    @inlinable
    public var value: Value {
        get async throws {
            try await result.get()
        }
    }

    /// The outcome, awaited. Never throws: a rejection is a `.failure`.
    ///
    /// Cancelling the awaiting `Task` cancels the deferred, and the result is
    /// `.failure(DeferredError.cancelled)` unless it had settled already —
    /// except on a `serializing…` bridge made with
    /// `automaticallyCancelling: false`, whose outcome the awaiter keeps
    /// waiting for.
    @inlinable
    public var result: Result<Value, any Error> {
        get async {
            let waiter = OutcomeWaiter<Value>()
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if waiter.install(continuation) {
                        whenSettled { waiter.finish($0) }
                    }
                }
            } onCancel: {
                guard self.awaiterCancellationCancels else { return }
                self.cancel()
                // Settled now, one way or another. Deliver directly: if this
                // deferred shares a queue with an upstream that others still
                // use, its queued handlers may have to wait for that upstream.
                waiter.finish(self.outcomeOnceSettled())
            }
        }
    }
}

/// Hands one outcome to one awaiting continuation, whichever of the handler
/// queue and the cancellation handler gets there first.
///
/// Inlinable, like ``Deferred/result``, so that an awaiter specialised in
/// the client's module needs no generic metadata looked up at run time.
@usableFromInline
final class OutcomeWaiter<Value: Sendable>: Sendable {
    @usableFromInline
    enum Phase {
        case idle
        case waiting(CheckedContinuation<Result<Value, any Error>, Never>)
        case finished(Result<Value, any Error>)
        case delivered
    }

    @usableFromInline
    let phase = Mutex(Phase.idle)

    @inlinable
    init() {}

    /// Installs the continuation. Returns `false` (after resuming it) when the
    /// outcome arrived first, from the cancellation handler.
    @inlinable
    func install(_ continuation: CheckedContinuation<Result<Value, any Error>, Never>) -> Bool {
        let early = phase.withLock(owner: self) { phase -> Result<Value, any Error>? in
            if case .finished(let outcome) = phase {
                phase = .delivered
                return outcome
            }
            phase = .waiting(continuation)
            return nil
        }
        guard let early else { return true }
        continuation.resume(returning: early)
        return false
    }

    @inlinable
    func finish(_ outcome: Result<Value, any Error>) {
        let continuation = phase.withLock(owner: self) { phase -> CheckedContinuation<Result<Value, any Error>, Never>? in
            switch phase {
            case .idle:
                phase = .finished(outcome)
                return nil
            case .waiting(let continuation):
                phase = .delivered
                return continuation
            case .finished, .delivered:
                return nil
            }
        }
        continuation?.resume(returning: outcome)
    }
}
