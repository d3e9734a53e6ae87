import DeferredQueue
import Dispatch

/// The DeferredQueue peer and the GCD-floor peer of the core scenarios
/// (a)–(e), shared by the Core benchmarks (wall clock) and by
/// `CoreInstructions` (callgrind), so both measure the same code.
///
/// Each function runs one iteration of its scenario at the given size (the
/// benchmarks pass ``Workload``'s) and returns once every handler ran.
public enum CoreScenario {
    /// The floor's queue label: static, like DeferredQueue's, so no string work per queue.
    static let floorLabel = "DeferredQueueBenchmarks.floor"
    /// The pool the floor's queues share: the one DeferredQueue's own target
    /// (GCD's default-QoS pool, sized to the cores). Without a target they
    /// would use the overcommit pool, which starts a thread per busy queue.
    static let floorTarget = DispatchQueue.global()

    // MARK: (a) resolved + then, per op

    public static func resolvedThenFloor(_ count: Int) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            let queue = DispatchQueue(label: floorLabel, target: floorTarget)
            queue.suspend()
            queue.async {
                blackHole(1 + 1)
                done.signal()
            }
            queue.resume()
            done.wait()
        }
    }

    public static func resolvedThen(_ count: Int) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            Deferred(value: 1).then { value in
                blackHole(value + 1)
                done.signal()
            }
            done.wait()
        }
    }

    // Variants of (a) with one change each, for `CoreInstructions` (no GCD
    // floor, not issue 27's scenarios): each keeps an entry point specialised
    // in the caller's module.

    /// (a) with a flattening step: `then` returning a deferred (`flatten`).
    public static func resolvedFlattenedThen(_ count: Int) {
        stepAfter(count) { Deferred(value: 1).then { value in Deferred(value: value) } }
    }

    /// (a) with a `timeout` before the step, a timer that never fires (`timeout`).
    public static func resolvedTimeoutThen(_ count: Int) {
        stepAfter(count) { Deferred(value: 1).timeout(1_000) }
    }

    /// (a) with the deferred made by an executor, the way a callback API is
    /// wrapped (`executor`).
    public static func executorThen(_ count: Int) {
        stepAfter(count) { Deferred<Int> { resolve, _ in resolve(1) } }
    }

    /// `count` times: a step chained on the deferred `make` returns, waited for.
    private static func stepAfter(_ count: Int, _ make: () -> Deferred<Int>) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            make().then { value in
                blackHole(value)
                done.signal()
            }
            done.wait()
        }
    }

    // MARK: (b) pending × 3-step chain, per chain

    public static func pendingChainsFloor(_ count: Int) {
        let finished = Countdown(count)
        var queues: [DispatchQueue] = []
        queues.reserveCapacity(count)
        for index in 0..<count {
            let queue = DispatchQueue(label: floorLabel, target: floorTarget)
            queue.suspend()
            queue.async { blackHole(index + 1) }
            queue.async { blackHole(index * 2) }
            queue.async { finished.arrive() }
            queues.append(queue)
        }
        for queue in queues { queue.resume() }
        finished.wait()
    }

    public static func pendingChains(_ count: Int) {
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

    // MARK: (c) 1 pending × 1,000 handlers, per handler

    public static func manyHandlersFloor(_ count: Int) {
        let finished = Countdown(count)
        let queue = DispatchQueue(label: floorLabel, target: floorTarget)
        queue.suspend()
        for _ in 0..<count {
            queue.async { finished.arrive() }
        }
        queue.resume()
        finished.wait()
    }

    public static func manyHandlers(_ count: Int) {
        let finished = Countdown(count)
        let (deferred, resolver) = Deferred<Int>.pending()
        for _ in 0..<count {
            deferred.then { _ in finished.arrive() }
        }
        resolver.fulfill(1)
        finished.wait()
    }

    // MARK: (d) 1,000-step chain, per step

    public static func longChainFloor(_ length: Int) {
        let finished = Countdown(1)
        let queue = DispatchQueue(label: floorLabel, target: floorTarget)
        queue.suspend()
        for step in 0..<length {
            queue.async { blackHole(step + 1) }
        }
        queue.async { finished.arrive() }
        queue.resume()
        finished.wait()
    }

    public static func longChain(_ length: Int) {
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

    // MARK: (e) all over 10,000, per input

    /// The least `all` can do: one queue per input, whose one block counts down.
    public static func allFloor(_ count: Int) {
        let finished = Countdown(count)
        var queues: [DispatchQueue] = []
        queues.reserveCapacity(count)
        for _ in 0..<count {
            let queue = DispatchQueue(label: floorLabel, target: floorTarget)
            queue.suspend()
            queue.async { finished.arrive() }
            queues.append(queue)
        }
        for queue in queues { queue.resume() }
        finished.wait()
    }

    public static func all(_ count: Int) {
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
}

/// Like the benchmark tool's `blackHole`: an opaque call the optimiser must
/// keep. Internal, so the benchmarks still see the tool's own.
@inline(never) @_optimize(none)
func blackHole<T>(_: T) {}
