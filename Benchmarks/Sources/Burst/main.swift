// A burst of settled deferreds, and what the rest of the process sees of it.
//
//     swift run -c release --package-path Benchmarks Burst [chains|blocking] [µs per handler]
//
// `chains` (default): 100,000 pending deferreds, each with a two-step chain,
// fulfilled from four threads; the last step spins for the given time
// (default 0). `blocking`: 2,000 settled deferreds whose handler sleeps that
// long (default 1,000 µs): what a pool sized to the cores costs handlers that block.
//
// Prints the most threads the process had, the longest another serial queue
// (a default `DispatchQueue(label:)`, pinged every 2 ms) waited to run a
// block, the wall time and the CPU time.
import DeferredQueue
import Dispatch
import Foundation
import Synchronization

let arguments = CommandLine.arguments.dropFirst()
let scenario = arguments.first ?? "chains"
guard scenario == "chains" || scenario == "blocking" else {
    FileHandle.standardError.write(Data("usage: Burst [chains|blocking] [µs per handler]\n".utf8))
    exit(2)
}
let microseconds = arguments.dropFirst().first.flatMap { Int($0) } ?? (scenario == "blocking" ? 1_000 : 0)

/// Raises `atomic` to `value` if it is larger.
@Sendable func raise(_ atomic: borrowing Atomic<Int>, to value: Int) {
    var seen = atomic.load(ordering: .relaxed)
    while value > seen {
        (_, seen) = atomic.compareExchange(expected: seen, desired: value, ordering: .relaxed)
    }
}

@Sendable func threadCount() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return -1 }
    return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? -1
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let watching = Atomic<Bool>(true)
let mostThreads = Atomic<Int>(0)
let longestWait = Atomic<Int>(0)
let watcher = Thread {
    while watching.load(ordering: .relaxed) {
        raise(mostThreads, to: threadCount())
        usleep(1_000)
    }
}
let probe = DispatchQueue(label: "Burst.probe")
let pinger = Thread {
    while watching.load(ordering: .relaxed) {
        let sent = DispatchTime.now().uptimeNanoseconds
        probe.async { raise(longestWait, to: Int(DispatchTime.now().uptimeNanoseconds - sent)) }
        usleep(2_000)
    }
}
watcher.start()
pinger.start()

let count = scenario == "chains" ? 100_000 : 2_000
let remaining = Atomic<Int>(count)
let finished = DispatchSemaphore(value: 0)
@Sendable func handled() {
    if remaining.subtract(1, ordering: .relaxed).newValue == 0 { finished.signal() }
}

let startCPU = cpuSeconds()
let start = DispatchTime.now().uptimeNanoseconds
if scenario == "chains" {
    let pairs = (0..<count).map { _ in Deferred<Int>.pending() }
    for (deferred, _) in pairs {
        deferred.then { $0 + 1 }.then { _ in
            let end = DispatchTime.now().uptimeNanoseconds + UInt64(microseconds) * 1_000
            while DispatchTime.now().uptimeNanoseconds < end {}
            handled()
        }
    }
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
        for index in stride(from: thread, to: count, by: 4) { pairs[index].resolver.fulfill(index) }
    }
} else {
    for index in 0..<count {
        Deferred(value: index).then { _ in
            usleep(UInt32(microseconds))
            handled()
        }
    }
}
finished.wait()
let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
let cpu = cpuSeconds() - startCPU
watching.store(false, ordering: .relaxed)
print(String(
    format: "%@ %d µs: %d threads at most, another queue waited up to %.1f ms, wall %.2f s, CPU %.2f s",
    scenario, microseconds, mostThreads.load(ordering: .relaxed), Double(longestWait.load(ordering: .relaxed)) / 1e6, wall, cpu
))
