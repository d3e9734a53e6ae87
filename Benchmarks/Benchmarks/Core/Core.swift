import Benchmark

// (a)–(e) of issue 5: each scenario runs the same work, with the same N, on
// every peer. The "GCD floor" does it with raw libdispatch — one serial queue
// per task, created suspended, closures enqueued with `async`, then resumed —
// which is the physical limit of DeferredQueue's design. BENCHMARKS.md turns
// the results into ratios to that floor.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 30
    )
    registerResolvedThen()
    registerPendingChains()
    registerManyHandlers()
    registerLongChain()
    registerAll()
}
