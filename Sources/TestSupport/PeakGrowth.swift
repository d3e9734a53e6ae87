import Dispatch
import DeferredQueueTesting

/// The resident-memory growth the transfer tests (1 GiB downloads and
/// streams, 500 MiB uploads) tolerate, in MiB.
///
/// The target is 32 MiB, which every transfer meets when run alone (about
/// 10–20 MiB, see RELIABILITY.md). In a full `swift test` every other suite
/// runs in the same process on the same two cores, so the bounds leave room
/// for that while still catching a body held in memory (hundreds of MiB).
public enum TransferMemory {
    /// Sending or receiving 1 GiB, on any transport: each holds the other
    /// side back when the session falls behind.
    public static let bound = 48.0
    /// A 1 GiB download from a server as fast as loopback, in a process of
    /// its own (issue 24's bound).
    public static let unpacedDownloadBound = 64.0
}

/// How much resident memory `work` adds at its peak, in MiB: the smallest
/// of up to `attempts` runs, a pause before each retry, so that a
/// neighbouring test's burst (all test targets share one process) is not
/// blamed on `work`; a real regression adds its cost to every run. Stops
/// early once a run stays under `bound`.
public func peakGrowth(attempts: Int = 5, bound: Double, _ work: () async throws -> Void) async rethrows -> Double {
    var smallest = Double.infinity
    for attempt in 0..<attempts {
        if attempt > 0 { try? await Task.sleep(nanoseconds: 250_000_000) }
        ResidentMemory.trim()
        let before = ResidentMemory.mebibytes() ?? 0
        let peak = PeakMemory()
        try await work()
        smallest = min(smallest, peak.value - before)
        if smallest <= bound { break }
    }
    return smallest
}

/// The highest resident memory seen while it runs: sampled every 20 ms on a
/// timer of its own, so that measuring does not slow the transfer measured.
public final class PeakMemory: Sendable {
    private let peakKiB = Counter()
    private let timer: RequestDeadlineTimer

    public init() {
        let peak = peakKiB
        timer = RequestDeadlineTimer(interval: 0.02) {
            guard let now = ResidentMemory.mebibytes() else { return }
            let kib = Int(now * 1024)
            while true {
                let current = peak.count
                if kib <= current || peak.compareExchange(expected: current, desired: kib) { return }
            }
        }
    }

    deinit { timer.cancel() }

    /// In MiB.
    public var value: Double { Double(peakKiB.count) / 1024 }
}

/// A repeating dispatch timer.
private final class RequestDeadlineTimer: Sendable {
    nonisolated(unsafe) private let source: any DispatchSourceTimer

    init(interval: Double, _ handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "tests.peak-memory"))
        source.schedule(deadline: .now(), repeating: interval)
        source.setEventHandler(handler: handler)
        source.resume()
    }

    func cancel() { source.cancel() }
}
