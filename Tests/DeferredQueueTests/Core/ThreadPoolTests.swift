import DeferredQueueTesting
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing
import DeferredQueue

/// Every deferred owns a serial queue; those queues share GCD's default pool,
/// which runs about as many threads as there are cores. Made without a target,
/// they would share the *overcommit* pool instead, which starts a thread for
/// each queue that has work while the others are busy (up to 255 on Linux).
@Suite("Deferred: handler queues share a pool sized to the cores")
struct ThreadPoolTests {
    enum Burst: String, CaseIterable, CustomTestStringConvertible {
        /// Pending deferreds with a handler each, then all settled at once from four threads.
        case settledFromFourThreads
        /// Deferreds created settled, each given a handler as fast as one thread can.
        case handlersOnSettledDeferreds
        var testDescription: String { rawValue }
    }

    /// The most handlers a burst may run at once: the pool's width on this
    /// machine, plus the threads GCD adds while other suites block some of
    /// theirs, with room to spare; far below the overcommit pool's 255.
    static var bound: Int { max(32, 4 * ProcessInfo.processInfo.activeProcessorCount) }

    @Test(arguments: Burst.allCases)
    func aBurstOfHandlersRunsOnAFewThreadsNotOneEach(_ burst: Burst) async {
        let count = 5_000
        let running = Atomic<Int>(0)
        let mostAtOnce = Atomic<Int>(0)
        let done = Latch(count: count)
        let handler: @Sendable (Int) -> Void = { _ in
            let now = running.add(1, ordering: .relaxed).newValue
            var seen = mostAtOnce.load(ordering: .relaxed)
            while now > seen {
                (_, seen) = mostAtOnce.compareExchange(expected: seen, desired: now, ordering: .relaxed)
            }
            // Long enough that handlers overlap whenever a pool lets them.
            let end = DispatchTime.now().uptimeNanoseconds + 200_000
            while DispatchTime.now().uptimeNanoseconds < end {}
            running.subtract(1, ordering: .relaxed)
            done.arrive()
        }
        switch burst {
        case .settledFromFourThreads:
            let pairs = (0..<count).map { _ in Deferred<Int>.pending() }
            for (deferred, _) in pairs { deferred.then(handler) }
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in stride(from: thread, to: count, by: 4) { pairs[index].resolver.fulfill(index) }
            }
        case .handlersOnSettledDeferreds:
            for index in 0..<count { Deferred(value: index).then(handler) }
        }
        #expect(await done.wait())
        let most = mostAtOnce.load(ordering: .relaxed)
        #expect(most <= Self.bound, "\(most) handlers of different deferreds ran at once")
    }
}
