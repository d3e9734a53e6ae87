import Benchmark
import BenchmarkSupport
import DeferredQueue
import Dispatch
import NIOCore
import NIOEmbedded
import OpenCombine

/// (e) `all` over 10,000 pending tasks, settled one by one; wait for the
/// combined result. One iteration = the whole batch.
func registerAll() {
    let scenario = "(e) all over 10k"
    let count = Workload.allInputs

    Benchmark(name(scenario, .floor)) { _ in
        CoreScenario.allFloor(count)
    }

    Benchmark(name(scenario, .deferredQueue)) { _ in
        CoreScenario.all(count)
    }

    Benchmark(name(scenario, .nioThreaded)) { _ in
        let finished = Countdown(1)
        let promises = (0..<count).map { _ in nioLoop.makePromise(of: Int.self) }
        EventLoopFuture.whenAllSucceed(promises.map(\.futureResult), on: nioLoop).whenSuccess { values in
            blackHole(values)
            finished.arrive()
        }
        for (index, promise) in promises.enumerated() { promise.succeed(index) }
        finished.wait()
    }

    Benchmark(name(scenario, .nioEmbedded)) { _ in
        let loop = EmbeddedEventLoop()
        let finished = Countdown(1)
        let promises = (0..<count).map { _ in loop.makePromise(of: Int.self) }
        EventLoopFuture.whenAllSucceed(promises.map(\.futureResult), on: loop).whenSuccess { values in
            blackHole(values)
            finished.arrive()
        }
        for (index, promise) in promises.enumerated() { promise.succeed(index) }
        finished.wait()
    }

    Benchmark(name(scenario, .openCombine)) { _ in
        let finished = Countdown(1)
        var promises: [Future<Int, Never>.Promise] = []
        promises.reserveCapacity(count)
        let futures = (0..<count).map { _ in Future<Int, Never> { promises.append($0) } }
        // OpenCombine 0.14 has no MergeMany: flatten the sequence of futures instead.
        let subscription = futures.publisher.flatMap { $0 }.collect().sink { values in
            blackHole(values)
            finished.arrive()
        }
        for (index, promise) in promises.enumerated() { promise(.success(index)) }
        finished.wait()
        blackHole(subscription)
    }

    Benchmark(name(scenario, .concurrency)) { _ in
        let parked = Countdown(count)
        let store = ContinuationStore(capacity: count)
        let values = await withTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<count {
                group.addTask {
                    let value = await withCheckedContinuation { continuation in
                        store.park(continuation)
                        parked.arrive()
                    }
                    return (index, value)
                }
            }
            await parked.waitAsync()
            store.resumeAll()
            var values = [Int](repeating: 0, count: count)
            for await (index, value) in group { values[index] = value }
            return values
        }
        blackHole(values)
    }
}
