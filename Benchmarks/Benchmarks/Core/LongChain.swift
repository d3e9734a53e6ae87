import Benchmark
import BenchmarkSupport
import DeferredQueue
import Dispatch
import NIOCore
import NIOEmbedded
import OpenCombine

/// (d) A chain of 1,000 steps on one pending task, then settled; wait for the
/// last step. One iteration = the whole chain.
func registerLongChain() {
    let scenario = "(d) 1,000-step chain"
    let length = Workload.chainLength

    Benchmark(name(scenario, .floor)) { _ in
        CoreScenario.longChainFloor(length)
    }

    Benchmark(name(scenario, .deferredQueue)) { _ in
        CoreScenario.longChain(length)
    }

    Benchmark(name(scenario, .nioThreaded)) { _ in
        let finished = Countdown(1)
        let promise = nioLoop.makePromise(of: Int.self)
        var chain = promise.futureResult
        for _ in 0..<length {
            chain = chain.map { $0 + 1 }
        }
        chain.whenSuccess { _ in finished.arrive() }
        promise.succeed(0)
        finished.wait()
    }

    Benchmark(name(scenario, .nioEmbedded)) { _ in
        let loop = EmbeddedEventLoop()
        let finished = Countdown(1)
        let promise = loop.makePromise(of: Int.self)
        var chain = promise.futureResult
        for _ in 0..<length {
            chain = chain.map { $0 + 1 }
        }
        chain.whenSuccess { _ in finished.arrive() }
        promise.succeed(0)
        finished.wait()
    }

    Benchmark(name(scenario, .openCombine)) { _ in
        // Subscribing and completing recurse once per step: 1,000 steps
        // overflow the benchmark thread's stack, so this peer runs on a thread
        // with a large one.
        onLargeStack {
            let finished = Countdown(1)
            var fulfil: Future<Int, Never>.Promise?
            var chain = Future<Int, Never> { fulfil = $0 }.eraseToAnyPublisher()
            for _ in 0..<length {
                chain = chain.map { $0 + 1 }.eraseToAnyPublisher()
            }
            let subscription = chain.sink { _ in finished.arrive() }
            fulfil?(.success(0))
            finished.wait()
            blackHole(subscription)
        }
    }

    Benchmark(name(scenario, .concurrency)) { _ in
        var value = 0
        for _ in 0..<length {
            let current = value
            value = await withCheckedContinuation { continuation in
                Task { continuation.resume(returning: current + 1) }
            }
        }
        blackHole(value)
    }
}
