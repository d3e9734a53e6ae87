import Dispatch
import DeferredQueueTesting
import Foundation

/// How much memory the transfer tests (1 GiB downloads and streams, 500 MiB
/// uploads) may add, in MiB, and which figure they judge.
///
/// The bound is issue 14's 32 MiB of resident memory. It is judged on
/// resident memory where the test runs in a process of its own (`.ci/run`
/// runs each again so, with `DEFERREDQUEUE_RUN_ALONE=1`); in a full
/// `swift test`, where every suite shares the process and its allocator,
/// on the heap in use (``HeapMemory``): there resident memory also counts the
/// freed pages of every neighbour's arena that the transfer's allocations
/// touch again (RELIABILITY.md has the figures), while the heap in use is
/// what the code under test holds.
public enum TransferMemory {
    /// Sending or receiving 1 GiB, or sending 500 MiB, on any transport: each
    /// holds the other side back when the session falls behind.
    public static let bound = 32.0
    /// A 1 GiB download or stream from a server as fast as loopback, in a
    /// process of its own (issue 24's bound for both).
    public static let unpacedBound = 64.0
    /// Whether this process runs the memory tests alone (see above).
    public static let runsAlone = ProcessInfo.processInfo.environment["DEFERREDQUEUE_RUN_ALONE"] == "1"
    /// Whether resident memory is judged: alone, or where the C library
    /// does not count its heap.
    static let judgesResident = runsAlone || HeapMemory.mebibytes() == nil
}

/// The growth of both figures during a transfer, in MiB.
public struct MemoryGrowth: Sendable, CustomStringConvertible {
    /// Resident memory, peak minus start.
    public let resident: Double
    /// The heap in use, peak minus start.
    public let heap: Double

    /// The figure a transfer test judges (``TransferMemory``): resident
    /// memory in a process of its own (or where the C library does not count
    /// its heap), the heap in use beside other suites.
    public var judged: Double { TransferMemory.judgesResident ? resident : heap }

    public var description: String {
        "\(judged) MiB (resident \(resident), heap in use \(heap); judged: \(TransferMemory.judgesResident ? "resident" : "heap in use"))"
    }
}

/// How much resident memory `work` adds at its peak, in MiB: the smallest
/// of up to `attempts` runs, each started once memory holds still
/// (``quietMoment(figure:)``), so that a neighbouring test's burst (all
/// test targets share one process) is not blamed on `work`; a real
/// regression adds its cost to every run. Stops early once a run stays
/// under `bound`.
public func peakGrowth(attempts: Int = 5, bound: Double, _ work: () async throws -> Void) async rethrows -> Double {
    try await transferGrowth(attempts: attempts, bound: bound, judging: \.resident, work).resident
}

/// Like ``peakGrowth(attempts:bound:_:)``, for the transfer and body-limit
/// tests: both figures, of the run whose judged figure is smallest.
public func transferGrowth(attempts: Int = 5, bound: Double, _ work: () async throws -> Void) async rethrows -> MemoryGrowth {
    try await transferGrowth(attempts: attempts, bound: bound, judging: \.judged, work)
}

private func transferGrowth(
    attempts: Int, bound: Double, judging figure: KeyPath<MemoryGrowth, Double>, _ work: () async throws -> Void
) async rethrows -> MemoryGrowth {
    var smallest = MemoryGrowth(resident: .infinity, heap: .infinity)
    for attempt in 0..<attempts {
        if attempt > 0 { try? await Task.sleep(nanoseconds: 250_000_000) }
        ResidentMemory.trim()
        await quietMoment(figure: figure == \MemoryGrowth.resident || TransferMemory.judgesResident ? ResidentMemory.mebibytes : HeapMemory.mebibytes)
        let residentBefore = ResidentMemory.mebibytes() ?? 0
        let heapBefore = HeapMemory.mebibytes() ?? 0
        let resident = PeakMemory(sampling: ResidentMemory.mebibytes)
        let heap = PeakMemory(sampling: HeapMemory.mebibytes)
        try await work()
        let growth = MemoryGrowth(resident: resident.value - residentBefore, heap: heap.value - heapBefore)
        if growth[keyPath: figure] < smallest[keyPath: figure] { smallest = growth }
        if smallest[keyPath: figure] <= bound { break }
    }
    return smallest
}

/// Returns once `figure` stayed within 2 MiB for 300 ms, or after 30 s.
///
/// When a full `swift test` starts, hundreds of tests start at once and the
/// heap swings by tens of MiB for seconds (their servers, certificates and
/// 256 MiB back-pressure transfers): a measurement begun then judges the
/// neighbours. Waiting cannot hide a regression: the work under test has
/// not started yet.
private func quietMoment(figure: () -> Double?) async {
    let deadline = ContinuousClock.now + .seconds(30)
    var window: [Double] = []
    while ContinuousClock.now < deadline {
        guard let now = figure() else { return }
        window.append(now)
        if window.count > 12 { window.removeFirst() }
        if window.count == 12, let low = window.min(), let high = window.max(), high - low <= 2 { return }
        try? await Task.sleep(nanoseconds: 25_000_000)
    }
}

/// The highest value of a memory figure (resident memory by default) seen
/// while it runs: sampled every 20 ms on a timer of its own, so that
/// measuring does not slow the transfer measured.
public final class PeakMemory: Sendable {
    private let peakKiB = Counter()
    private let timer: RequestDeadlineTimer

    public init(sampling sample: @escaping @Sendable () -> Double? = ResidentMemory.mebibytes) {
        let peak = peakKiB
        timer = RequestDeadlineTimer(interval: 0.02) {
            guard let now = sample() else { return }
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
