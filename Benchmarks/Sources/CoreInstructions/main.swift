import DeferredQueue
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A deterministic harness for callgrind: runs one core scenario (a)–(e) —
// the same code as the Core benchmarks' DeferredQueue peer and GCD-floor
// peer (Benchmarks/Core) — a given number of times, and nothing else.
// Instructions per item are (Ir(11 repetitions) − Ir(1)) / 10 / items per
// repetition, which cancels start-up; Scripts/core-instructions.sh does it.
//
//     CoreInstructions <a|b|c|d|e|floor-a|…|floor-e> <repetitions> [items]
//
// `items` overrides the scenario's size (the benchmarks' `Workload`): (b)
// with 100,000 chains takes minutes under callgrind. It depends on the
// library alone, not on the benchmark tool, so it builds in seconds.

/// The sizes of Benchmarks/Sources/BenchmarkSupport/Workload.swift.
enum Size {
    static let resolvedThen = 1_000
    static let pendingChains = 100_000
    static let handlersOnOne = 1_000
    static let chainLength = 1_000
    static let allInputs = 10_000
}

/// The benchmark tool's `blackHole`: an opaque call the optimiser must keep.
@inline(never) @_optimize(none)
func blackHole<T>(_: T) {}

/// BenchmarkSupport's `Countdown`, copied to keep this target's dependencies
/// to the library.
final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let done = DispatchSemaphore(value: 0)

    init(_ count: Int) {
        remaining = Atomic(count)
    }

    func arrive() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            done.signal()
        }
    }

    func wait() {
        done.wait()
    }
}

let floorLabel = "DeferredQueueBenchmarks.floor"

// MARK: - (a) resolved + then, per op

func resolvedThenFloor(_ count: Int) {
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<count {
        let queue = DispatchQueue(label: floorLabel)
        queue.suspend()
        queue.async {
            blackHole(1 + 1)
            done.signal()
        }
        queue.resume()
        done.wait()
    }
}

func resolvedThen(_ count: Int) {
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<count {
        Deferred(value: 1).then { value in
            blackHole(value + 1)
            done.signal()
        }
        done.wait()
    }
}

// MARK: - (b) pending × 3-step chain, per chain

func pendingChainsFloor(_ count: Int) {
    let finished = Countdown(count)
    var queues: [DispatchQueue] = []
    queues.reserveCapacity(count)
    for index in 0..<count {
        let queue = DispatchQueue(label: floorLabel)
        queue.suspend()
        queue.async { blackHole(index + 1) }
        queue.async { blackHole(index * 2) }
        queue.async { finished.arrive() }
        queues.append(queue)
    }
    for queue in queues { queue.resume() }
    finished.wait()
}

func pendingChains(_ count: Int) {
    let finished = Countdown(count)
    var resolvers: [Resolver<Int>] = []
    resolvers.reserveCapacity(count)
    for _ in 0..<count {
        let (deferred, resolver) = Deferred<Int>.pending()
        deferred
            .then { $0 + 1 }
            .then { $0 * 2 }
            .then { _ in finished.arrive() }
        resolvers.append(resolver)
    }
    for (index, resolver) in resolvers.enumerated() { resolver.fulfill(index) }
    finished.wait()
}

// MARK: - (c) 1 pending × 1,000 handlers, per handler

func manyHandlersFloor(_ count: Int) {
    let finished = Countdown(count)
    let queue = DispatchQueue(label: floorLabel)
    queue.suspend()
    for _ in 0..<count {
        queue.async { finished.arrive() }
    }
    queue.resume()
    finished.wait()
}

func manyHandlers(_ count: Int) {
    let finished = Countdown(count)
    let (deferred, resolver) = Deferred<Int>.pending()
    for _ in 0..<count {
        deferred.then { _ in finished.arrive() }
    }
    resolver.fulfill(1)
    finished.wait()
}

// MARK: - (d) 1,000-step chain, per step

func longChainFloor(_ length: Int) {
    let finished = Countdown(1)
    let queue = DispatchQueue(label: floorLabel)
    queue.suspend()
    for step in 0..<length {
        queue.async { blackHole(step + 1) }
    }
    queue.async { finished.arrive() }
    queue.resume()
    finished.wait()
}

func longChain(_ length: Int) {
    let finished = Countdown(1)
    let (root, resolver) = Deferred<Int>.pending()
    var chain = root
    for _ in 0..<length {
        chain = chain.then { $0 + 1 }
    }
    chain.then { _ in finished.arrive() }
    resolver.fulfill(0)
    finished.wait()
}

// MARK: - (e) all over 10,000, per input

func allFloor(_ count: Int) {
    let finished = Countdown(count)
    var queues: [DispatchQueue] = []
    queues.reserveCapacity(count)
    for _ in 0..<count {
        let queue = DispatchQueue(label: floorLabel)
        queue.suspend()
        queue.async { finished.arrive() }
        queues.append(queue)
    }
    for queue in queues { queue.resume() }
    finished.wait()
}

func all(_ count: Int) {
    let finished = Countdown(1)
    var inputs: [Deferred<Int>] = []
    var resolvers: [Resolver<Int>] = []
    inputs.reserveCapacity(count)
    resolvers.reserveCapacity(count)
    for _ in 0..<count {
        let (deferred, resolver) = Deferred<Int>.pending()
        inputs.append(deferred)
        resolvers.append(resolver)
    }
    Deferred.all(inputs).then { values in
        blackHole(values)
        finished.arrive()
    }
    for (index, resolver) in resolvers.enumerated() { resolver.fulfill(index) }
    finished.wait()
}

// MARK: - Main

let scenarios: [String: (run: (Int) -> Void, size: Int)] = [
    "a": (resolvedThen, Size.resolvedThen),
    "b": (pendingChains, Size.pendingChains),
    "c": (manyHandlers, Size.handlersOnOne),
    "d": (longChain, Size.chainLength),
    "e": (all, Size.allInputs),
    "floor-a": (resolvedThenFloor, Size.resolvedThen),
    "floor-b": (pendingChainsFloor, Size.pendingChains),
    "floor-c": (manyHandlersFloor, Size.handlersOnOne),
    "floor-d": (longChainFloor, Size.chainLength),
    "floor-e": (allFloor, Size.allInputs),
]

let arguments = CommandLine.arguments
guard arguments.count >= 3, let scenario = scenarios[arguments[1]], let repetitions = Int(arguments[2]) else {
    print("usage: CoreInstructions <a|b|c|d|e|floor-a|…|floor-e> <repetitions> [items]")
    exit(2)
}
let items = arguments.count > 3 ? Int(arguments[3]) ?? scenario.size : scenario.size
for _ in 0..<repetitions { scenario.run(items) }
