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

/// The smallest resident-memory growth, in MiB, of up to three runs of
/// `run` (each returns its own growth, or `nil` where nothing can be
/// measured): all test targets share one process, so a neighbour's burst is
/// not blamed on `run`, while a real regression adds its cost to every run.
/// Stops at the first run under `bound`.
func smallestGrowth(under bound: Double, _ run: @escaping @Sendable () throws -> Double?) async throws -> Double? {
    var smallest: Double?
    for _ in 0..<3 {
        guard let growth = try await offThePool(run) else { return nil }
        smallest = min(smallest ?? growth, growth)
        if growth < bound { break }
    }
    return smallest
}
