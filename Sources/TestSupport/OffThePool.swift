import Dispatch

/// Runs `body`'s jobs on a serial dispatch queue of its own instead of
/// Swift's cooperative pool.
///
/// For a memory test whose `for await` loop must keep up with a transport
/// that cannot be held back for a slow reader (URLSession on Linux): under
/// the full suite, CPU-bound suites can keep the cooperative pool's threads
/// (one per core) busy for tens of seconds, and a loop waiting for one of
/// them reads nothing meanwhile — what such a test measures is then the
/// test runner's load, not the library.
public func offThePool<T: Sendable>(_ body: () async throws -> T) async throws -> T {
    try await withTaskExecutorPreference(QueueExecutor()) { try await body() }
}

/// A task executor that runs each job on one serial dispatch queue.
private final class QueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "TestSupport.offThePool")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
