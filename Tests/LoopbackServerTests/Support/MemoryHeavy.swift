import DeferredQueueTesting
import Dispatch
import LoopbackServer

/// Runs the tests of this target that allocate tens of MiB, or measure resident
/// memory, one at a time — and not alongside other targets' memory-heavy tests.
enum MemoryHeavy {
    /// Runs `body` while no other memory-heavy test runs.
    static func exclusively<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await MemoryHeavyWork.exclusively(body)
    }
}

/// Runs blocking work (socket reads of hundreds of MiB, a child process) on a
/// Dispatch thread instead of one of the few threads of Swift's cooperative
/// pool, so tests of other suites that need the pool are not starved.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
