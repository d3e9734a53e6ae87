import BenchmarkSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A deterministic harness for callgrind: runs one core scenario (a)–(e) —
// the Core benchmarks' DeferredQueue peer or GCD-floor peer (`CoreScenario`)
// — a given number of times, and nothing else. Instructions per item are
// (Ir(11 repetitions) − Ir(1)) / 10 / items per repetition, which cancels
// start-up; Scripts/core-instructions.sh does it.
//
//     CoreInstructions <a|b|c|d|e|floor-a|…|floor-e|flatten|timeout|executor> <repetitions> [items]
//
// `items` overrides the scenario's size (`Workload`): (b) with 100,000
// chains takes minutes under callgrind. It needs the root package alone,
// not the benchmark tool, so it builds in seconds.

let scenarios: [String: (run: (Int) -> Void, size: Int)] = [
    "a": (CoreScenario.resolvedThen, Workload.resolvedThenPerIteration),
    "b": (CoreScenario.pendingChains, Workload.pendingChains),
    "c": (CoreScenario.manyHandlers, Workload.handlersOnOne),
    "d": (CoreScenario.longChain, Workload.chainLength),
    "e": (CoreScenario.all, Workload.allInputs),
    "flatten": (CoreScenario.resolvedFlattenedThen, Workload.resolvedThenPerIteration),
    "timeout": (CoreScenario.resolvedTimeoutThen, Workload.resolvedThenPerIteration),
    "executor": (CoreScenario.executorThen, Workload.resolvedThenPerIteration),
    "floor-a": (CoreScenario.resolvedThenFloor, Workload.resolvedThenPerIteration),
    "floor-b": (CoreScenario.pendingChainsFloor, Workload.pendingChains),
    "floor-c": (CoreScenario.manyHandlersFloor, Workload.handlersOnOne),
    "floor-d": (CoreScenario.longChainFloor, Workload.chainLength),
    "floor-e": (CoreScenario.allFloor, Workload.allInputs),
]

let arguments = CommandLine.arguments
guard arguments.count >= 3, let scenario = scenarios[arguments[1]], let repetitions = Int(arguments[2]) else {
    print("usage: CoreInstructions <a|b|c|d|e|floor-a|…|floor-e|flatten|timeout|executor> <repetitions> [items]")
    exit(2)
}
let items = arguments.count > 3 ? Int(arguments[3]) ?? scenario.size : scenario.size
for _ in 0..<repetitions { scenario.run(items) }
