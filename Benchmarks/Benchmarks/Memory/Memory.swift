import Benchmark
import BenchmarkSupport
import DeferredQueue
import Dispatch
import NIOEmbedded
import NIOCore

// (f) Resident bytes per pending task with one handler: 1,000,000 of them
// alive at once, measured as the growth of the resident set
// (/proc/self/statm) divided by their number. Each benchmark runs once in a
// fresh process (the benchmark tool starts one per benchmark), so memory
// freed by an earlier run cannot hide the cost.
//
// The malloc interposer used to count allocations adds a small header to each
// allocation; every peer pays it alike.

let benchmarks: @Sendable () -> Void = {
    let bytesPerPending = BenchmarkMetric.custom("B/pending", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark.defaultConfiguration = .init(
        metrics: [bytesPerPending],
        warmupIterations: 0,
        maxIterations: 1
    )
    let count = Workload.residentPending
    let scenario = "(f) resident bytes, 1M pending × 1 handler"

    Benchmark("\(scenario) · GCD floor") { benchmark in
        let finished = Countdown(count)
        let bytes = ResidentMemory.bytesPerItem(count: count) { _ -> DispatchQueue in
            let queue = DispatchQueue(label: "DeferredQueueBenchmarks.floor")
            queue.suspend()
            queue.async { finished.arrive() }
            return queue
        } release: { queues in
            for queue in queues { queue?.resume() }
            finished.wait()
        }
        benchmark.measurement(bytesPerPending, bytes)
    }

    Benchmark("\(scenario) · DeferredQueue") { benchmark in
        let finished = Countdown(count)
        let bytes = ResidentMemory.bytesPerItem(count: count) { _ -> Resolver<Int> in
            let (deferred, resolver) = Deferred<Int>.pending()
            deferred.then { _ in finished.arrive() }
            return resolver
        } release: { resolvers in
            for resolver in resolvers { resolver?.fulfill(1) }
            finished.wait()
        }
        benchmark.measurement(bytesPerPending, bytes)
    }

    Benchmark("\(scenario) · NIO Embedded") { benchmark in
        let loop = EmbeddedEventLoop()
        let finished = Countdown(count)
        let bytes = ResidentMemory.bytesPerItem(count: count) { _ -> EventLoopPromise<Int> in
            let promise = loop.makePromise(of: Int.self)
            promise.futureResult.whenSuccess { _ in finished.arrive() }
            return promise
        } release: { promises in
            for promise in promises { promise?.succeed(1) }
            finished.wait()
        }
        benchmark.measurement(bytesPerPending, bytes)
    }
}
