import Benchmark
import BenchmarkSupport
import DeferredQueue
import Dispatch
import NIOCore
import NIOEmbedded
import OpenCombine

/// (c) One pending task with 1,000 handlers, then settled; wait until every
/// handler ran. One iteration = the whole batch.
func registerManyHandlers() {
    let scenario = "(c) 1 pending × 1,000 handlers"
    let count = Workload.handlersOnOne

    Benchmark(name(scenario, .floor)) { _ in
        CoreScenario.manyHandlersFloor(count)
    }

    Benchmark(name(scenario, .deferredQueue)) { _ in
        CoreScenario.manyHandlers(count)
    }

    Benchmark(name(scenario, .nioThreaded)) { _ in
        let finished = Countdown(count)
        let promise = nioLoop.makePromise(of: Int.self)
        for _ in 0..<count {
            promise.futureResult.whenSuccess { _ in finished.arrive() }
        }
        promise.succeed(1)
        finished.wait()
    }

    Benchmark(name(scenario, .nioEmbedded)) { _ in
        let loop = EmbeddedEventLoop()
        let finished = Countdown(count)
        let promise = loop.makePromise(of: Int.self)
        for _ in 0..<count {
            promise.futureResult.whenSuccess { _ in finished.arrive() }
        }
        promise.succeed(1)
        finished.wait()
    }

    Benchmark(name(scenario, .openCombine)) { _ in
        let finished = Countdown(count)
        var fulfil: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { fulfil = $0 }
        var subscriptions: [AnyCancellable] = []
        subscriptions.reserveCapacity(count)
        for _ in 0..<count {
            subscriptions.append(future.sink { _ in finished.arrive() })
        }
        fulfil?(.success(1))
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
                blackHole(value)
                finished.arrive()
            }
        }
        await parked.waitAsync()
        store.resumeAll()
        await finished.waitAsync()
    }
}
