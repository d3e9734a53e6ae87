import LoopbackServer

/// How much resident memory `work` adds at its peak, in MiB: the smallest
/// of up to `attempts` runs, so that a neighbouring test's burst (all test
/// targets share one process) is not blamed on `work`; a real regression
/// adds its cost to every run. Stops early once a run stays under `bound`.
func peakGrowth(attempts: Int = 3, bound: Double, _ work: () async throws -> Void) async rethrows -> Double {
    var smallest = Double.infinity
    for _ in 0..<attempts {
        ResidentMemory.trim()
        let before = ResidentMemory.mebibytes() ?? 0
        let peak = PeakMemory()
        try await work()
        smallest = min(smallest, peak.value - before)
        if smallest <= bound { break }
    }
    return smallest
}
