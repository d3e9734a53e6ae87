import Dispatch
/// Runs the tests of this target that allocate tens of MiB, or measure resident
/// memory, one at a time, so a memory measurement sees its own test and not a
/// neighbour's 64 MiB buffers.
enum MemoryHeavy {
    private static let lock = AsyncLock()

    /// Runs `body` while no other memory-heavy test runs.
    static func exclusively<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        await lock.lock()
        do {
            let result = try await body()
            await lock.unlock()
            return result
        } catch {
            await lock.unlock()
            throw error
        }
    }
}

/// A lock for async code: waiters queue in order and suspend instead of blocking a thread.
private actor AsyncLock {
    private var isLocked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func lock() async {
        guard isLocked else {
            isLocked = true
            return
        }
        // Ownership passes directly from unlock() to the first waiter.
        await withCheckedContinuation { waiters.append($0) }
    }

    func unlock() {
        if waiters.isEmpty {
            isLocked = false
        } else {
            waiters.removeFirst().resume()
        }
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
