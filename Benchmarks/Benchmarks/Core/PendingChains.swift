import Benchmark
import BenchmarkSupport
import DeferredQueue
import Dispatch
import NIOCore
import NIOEmbedded
import OpenCombine

/// (b) Build 100,000 pending tasks, each with a three-step chain, then settle
/// them all and wait until every chain has run. One iteration = the whole batch.
func registerPendingChains() {
    let scenario = "(b) 100k pending × 3-step chain"
    let count = Workload.pendingChains

    Benchmark(name(scenario, .floor)) { _ in
        CoreScenario.pendingChainsFloor(count)
    }

    Benchmark(name(scenario, .deferredQueue)) { _ in
        CoreScenario.pendingChains(count)
    }

    Benchmark(name(scenario, .nioThreaded)) { _ in
        let finished = Countdown(count)
        var promises: [EventLoopPromise<Int>] = []
        promises.reserveCapacity(count)
        for _ in 0..<count {
            let promise = nioLoop.makePromise(of: Int.self)
            promise.futureResult
                .map { $0 + 1 }
                .map { $0 * 2 }
                .whenSuccess { _ in finished.arrive() }
            promises.append(promise)
        }
        for (index, promise) in promises.enumerated() { promise.succeed(index) }
        finished.wait()
    }

    Benchmark(name(scenario, .nioEmbedded)) { _ in
        let loop = EmbeddedEventLoop()
        let finished = Countdown(count)
        var promises: [EventLoopPromise<Int>] = []
        promises.reserveCapacity(count)
        for _ in 0..<count {
            let promise = loop.makePromise(of: Int.self)
            promise.futureResult
                .map { $0 + 1 }
                .map { $0 * 2 }
                .whenSuccess { _ in finished.arrive() }
            promises.append(promise)
        }
        for (index, promise) in promises.enumerated() { promise.succeed(index) }
        finished.wait()
    }

    Benchmark(name(scenario, .openCombine)) { _ in
        let finished = Countdown(count)
        var promises: [Future<Int, Never>.Promise] = []
        var subscriptions: [AnyCancellable] = []
        promises.reserveCapacity(count)
        subscriptions.reserveCapacity(count)
        for _ in 0..<count {
            let future = Future<Int, Never> { promises.append($0) }
            subscriptions.append(future
                .map { $0 + 1 }
                .map { $0 * 2 }
                .sink { _ in finished.arrive() })
        }
        for (index, promise) in promises.enumerated() { promise(.success(index)) }
        finished.wait()
        blackHole(subscriptions)
    }

    Benchmark(name(scenario, .concurrency)) { _ in
        let finished = Countdown(count)
        let parked = Countdown(count)
        let store = ContinuationStore(capacity: count)
        for _ in 0..<count {
            Task {
                let value = await withCheckedContinuation { continuation in
                    store.park(continuation)
                    parked.arrive()
                }
                let doubled = (value + 1) * 2
                blackHole(doubled)
                finished.arrive()
            }
        }
        await parked.waitAsync()
        store.resumeAll()
        await finished.waitAsync()
    }
}
