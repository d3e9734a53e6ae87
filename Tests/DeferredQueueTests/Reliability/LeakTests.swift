import DeferredQueueTesting
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// After heavy use, everything settled is freed: no request, deferred or task
/// map entry survives, and resident memory comes back near where it started.
///
/// Resident memory is process-wide and other suites run in parallel, so the
/// end figure is awaited (a condition with a deadline, not a timing) after the
/// garbage is gone and malloc has returned its free pages; the bound is
/// generous. The figures are printed for the record. Under a sanitizer the
/// figures are printed but not judged: ThreadSanitizer and AddressSanitizer
/// replace malloc with allocators that keep freed memory (ASan's quarantine
/// alone holds up to 256 MiB) and add shadow memory, so resident memory says
/// nothing about our objects there; the weak-reference checks still run.
@Suite("No leaks: settled requests and chains leave nothing behind", .serialized)
struct LeakTests {
    /// The largest growth tolerated between the start and the end of a test.
    static let allowedGrowth = 64.0

    @Test func tenThousandSettledRequestsLeaveNoRequestDeferredOrTaskBehind() async throws {
        try await MemoryHeavyWork.exclusively {
            let faults = try FaultServer()
            // Warm up: the first requests allocate what stays for good (libcurl,
            // URLSession's threads).
            await Self.settleRequests(100, on: faults, meter: nil)
            let meter = MemoryMeter()
            await Self.settleRequests(10_000, on: faults, meter: meter)
            #expect(await meter.settlesNearStart(within: Self.allowedGrowth, label: "10000 requests"))
        }
    }

    /// Runs `total` requests (at most 64 in flight) on a new session and checks
    /// that every request, its outcome deferred, the `serializingData`
    /// deferreds and the session's task map entries are gone afterwards.
    /// Returns once all of that, and the weak references themselves, are freed.
    private static func settleRequests(_ total: Int, on faults: FaultServer, meter: MemoryMeter?) async {
        let session = Session()
        let requests = WeakList<DataRequest>()
        let outcomes = WeakList<Deferred<RawResponse>>()
        let bridges = WeakList<Deferred<Data>>()
        let done = Latch(count: total)
        let slots = DispatchSemaphore(value: 64)
        await runOnThreads(1) { _ in
            for index in 0..<total {
                slots.wait()
                let req = session.request(faults.url(index.isMultiple(of: 10) ? "/status/500" : "/id?id=\(index)"))
                    .validate()
                    .responseString(queue: handlerQueue) { _ in }
                    .response(queue: handlerQueue) { _ in slots.signal(); done.arrive() }
                requests.add(req)
                outcomes.add(req.outcome)
                if index.isMultiple(of: 4) { bridges.add(req.serializingData()) }
                if index.isMultiple(of: 1_000) { meter?.sample() }
            }
        }
        #expect(await done.wait(seconds: 300))
        meter?.sample()
        #expect(await eventually { session.runningRequestCount == 0 }, "the task map is empty")
        #expect(await eventually { requests.aliveCount == 0 }, "\(requests.aliveCount) requests alive")
        #expect(await eventually { outcomes.aliveCount == 0 }, "\(outcomes.aliveCount) outcome deferreds alive")
        #expect(await eventually { bridges.aliveCount == 0 }, "\(bridges.aliveCount) serializing deferreds alive")
    }

    @Test func aHundredThousandSettledChainsLeaveNoDeferredBehind() async {
        await MemoryHeavyWork.exclusively {
            let meter = MemoryMeter()
            await Self.settleChains(100_000, meter: meter)
            #expect(await meter.settlesNearStart(within: Self.allowedGrowth, label: "100000 chains"))
        }
    }

    /// Builds `total` four-step chains, all pending at once (the peak), then
    /// settles them — half fulfilled, a quarter rejected, a quarter cancelled
    /// at the leaf — and checks every root, leaf and resolver is freed.
    ///
    /// The weak references are themselves heap objects (and give each
    /// referent a side table) scattered among the chains' memory; they are
    /// freed when this returns, before resident memory is judged.
    private static func settleChains(_ total: Int, meter: MemoryMeter) async {
        let deferreds = WeakList<Deferred<Int>>()
        let resolvers = WeakList<Resolver<Int>>()
        let done = Latch(count: total)
        do {
            var pending: [Resolver<Int>] = []
            pending.reserveCapacity(total)
            for index in 0..<total {
                let (root, resolver) = Deferred<Int>.pending()
                let leaf = root.then { $0 + 1 }
                    .then { value -> Deferred<Int> in Deferred(value: value * 2) }
                    .recover { _ in -1 }
                leaf.finally { done.arrive() }
                if index % 4 == 3 { leaf.cancel() }
                deferreds.add(root)
                deferreds.add(leaf)
                resolvers.add(resolver)
                pending.append(resolver)
            }
            meter.sample()
            for (index, resolver) in pending.enumerated() {
                if index % 4 == 2 { resolver.reject(TestError(index)) } else { resolver.fulfill(index) }
            }
        }
        #expect(await done.wait(seconds: 300))
        meter.sample()
        #expect(await eventually { deferreds.aliveCount == 0 }, "\(deferreds.aliveCount) deferreds alive")
        #expect(await eventually { resolvers.aliveCount == 0 }, "\(resolvers.aliveCount) resolvers alive")
    }
}

/// Resident memory at the start, the highest sample, and at the end.
final class MemoryMeter: Sendable {
    private let start: Double
    private let peak = Recorder<Double>()

    init() {
        ResidentMemory.trim()
        start = ResidentMemory.mebibytes() ?? 0
    }

    func sample() {
        if let now = ResidentMemory.mebibytes() { peak.append(now) }
    }

    /// Waits (up to `seconds`) for resident memory, with free pages returned,
    /// to come within `growth` MiB of the start; prints start, peak and end.
    func settlesNearStart(within growth: Double, label: String, seconds: Double = 60) async -> Bool {
        guard ResidentMemory.mebibytes() != nil else { return true }  // no /proc: nothing to measure
        let start = self.start
        let settled = await eventually(within: Sanitizers.any ? 1 : seconds) {
            ResidentMemory.trim()
            return (ResidentMemory.mebibytes() ?? 0) - start < growth
        }
        let end = ResidentMemory.mebibytes() ?? 0
        let top = max(peak.events.max() ?? end, end)
        func mib(_ value: Double) -> String { String(format: "%.1f MiB", value) }
        print("resident memory for \(label) (\(Sanitizers.description)): start \(mib(start)), peak \(mib(top)), "
            + "end \(mib(end)) (growth \(mib(end - start)))")
        return settled || Sanitizers.any
    }
}
