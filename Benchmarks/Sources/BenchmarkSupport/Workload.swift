/// The sizes every peer of one scenario uses, so a run compares like with like.
///
/// The letters follow issue 5 and BENCHMARKS.md.
public enum Workload {
    /// (a) resolved + one `then` + wait: operations per measured iteration.
    public static let resolvedThenPerIteration = 1_000
    /// (b) pending tasks, each with a three-step chain, settled after all are built.
    public static let pendingChains = 100_000
    /// (c) handlers on one pending task.
    public static let handlersOnOne = 1_000
    /// (d) steps in one chain.
    public static let chainLength = 1_000
    /// (e) inputs of one `all`.
    public static let allInputs = 10_000
    /// (f) pending tasks, each with one handler, held at once to measure memory.
    public static let residentPending = 1_000_000
    /// HTTP: concurrent requests in flight.
    public static let concurrentRequests = 64
}
