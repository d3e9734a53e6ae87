import DeferredQueueTesting
import Dispatch
import LoopbackServer
import Synchronization

/// The highest resident memory seen while a transfer runs, sampled from
/// `/proc/self/statm` every 10 ms on a timer of its own (so sampling never
/// waits for, or slows, the queues the transfer uses).
final class PeakResident: Sendable {
    /// The peak in KiB, shared with the timer's handler.
    private final class Peak: Sendable {
        let kib = Atomic(0)
    }

    private let peak = Peak()
    nonisolated(unsafe) private let timer: any DispatchSourceTimer

    init() {
        let peak = self.peak
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "TransferMemory.sampler"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(10))
        timer.setEventHandler {
            guard let now = ResidentMemory.mebibytes() else { return }
            peak.kib.max(Int(now * 1024), ordering: .relaxed)
        }
        timer.resume()
    }

    /// Stops sampling (one last sample first) and returns the peak in MiB.
    func stop() -> Double {
        timer.cancel()
        if let now = ResidentMemory.mebibytes() { peak.kib.max(Int(now * 1024), ordering: .relaxed) }
        return Double(peak.kib.load(ordering: .relaxed)) / 1024
    }
}
