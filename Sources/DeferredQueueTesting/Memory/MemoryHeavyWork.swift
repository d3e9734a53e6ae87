/// Runs test work that allocates hundreds of MiB, or measures resident
/// memory, one piece at a time across every test target of the process.
///
/// `swift test` runs all suites of all test targets in one process, in
/// parallel; a test that judges how much resident memory a 1 GiB download
/// adds would otherwise see a neighbour's buffers. Tests that allocate a lot
/// and tests that measure take this gate; other tests run alongside.
///
/// ```swift
/// @Test func aGibibyteDownloadKeepsMemoryFlat() async throws {
///     try await MemoryHeavyWork.exclusively { … }
/// }
/// ```
public enum MemoryHeavyWork {
    private static let gate = AsyncGate()

    /// Runs `body` while no other memory-heavy work runs. Waiting suspends;
    /// it blocks no thread.
    public static func exclusively<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        await gate.enter()
        do {
            let result = try await body()
            await gate.leave()
            return result
        } catch {
            await gate.leave()
            throw error
        }
    }
}

/// A lock for async code: waiters queue in order and suspend instead of blocking a thread.
private actor AsyncGate {
    private var isTaken = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard isTaken else {
            isTaken = true
            return
        }
        // Ownership passes directly from leave() to the first waiter.
        await withCheckedContinuation { waiters.append($0) }
    }

    func leave() {
        if waiters.isEmpty {
            isTaken = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
