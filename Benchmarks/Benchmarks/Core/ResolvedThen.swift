import Benchmark
import BenchmarkSupport
import DeferredQueue
import Dispatch
import NIOCore
import NIOEmbedded
import OpenCombine

/// (a) Create an already-resolved task, chain one step, wait for the step.
/// Measured per operation (1,000 per iteration).
func registerResolvedThen() {
    let scenario = "(a) resolved + then"
    let configuration = Benchmark.Configuration(scalingFactor: .kilo, maxIterations: 300)

    Benchmark(name(scenario, .floor), configuration: configuration) { benchmark in
        CoreScenario.resolvedThenFloor(benchmark.scaledIterations.count)
    }

    Benchmark(name(scenario, .deferredQueue), configuration: configuration) { benchmark in
        CoreScenario.resolvedThen(benchmark.scaledIterations.count)
    }

    Benchmark(name(scenario, .nioThreaded), configuration: configuration) { benchmark in
        let done = DispatchSemaphore(value: 0)
        for _ in benchmark.scaledIterations {
            _ = nioLoop.makeSucceededFuture(1).map { value in
                blackHole(value + 1)
                done.signal()
            }
            done.wait()
        }
    }

    Benchmark(name(scenario, .nioEmbedded), configuration: configuration) { benchmark in
        let loop = EmbeddedEventLoop()
        let done = DispatchSemaphore(value: 0)
        for _ in benchmark.scaledIterations {
            _ = loop.makeSucceededFuture(1).map { value in
                blackHole(value + 1)
                done.signal()
            }
            done.wait()
        }
    }

    Benchmark(name(scenario, .openCombine), configuration: configuration) { benchmark in
        let done = DispatchSemaphore(value: 0)
        for _ in benchmark.scaledIterations {
            let subscription = Future<Int, Never> { promise in promise(.success(1)) }
                .map { $0 + 1 }
                .sink { value in
                    blackHole(value)
                    done.signal()
                }
            done.wait()
            blackHole(subscription)
        }
    }

    Benchmark(name(scenario, .concurrency), configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            let value = await withCheckedContinuation { continuation in
                Task { continuation.resume(returning: 1) }
            }
            blackHole(value + 1)
        }
    }
}
