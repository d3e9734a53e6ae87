import DeferredQueue
import Dispatch
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// OpenCombine has a `Deferred` publisher too; in this target the name means ours.
typealias Deferred = DeferredQueue.Deferred

/// The implementations every scenario is run on, in the order they are reported.
enum Peer: String, CaseIterable {
    case floor = "GCD floor"
    case deferredQueue = "DeferredQueue"
    case nioThreaded = "NIO MTELG(1)"
    case nioEmbedded = "NIO Embedded"
    case openCombine = "OpenCombine"
    case concurrency = "async/await"
}

/// `"<scenario> · <peer>"`, the benchmark names BENCHMARKS.md refers to.
func name(_ scenario: String, _ peer: Peer) -> String {
    "\(scenario) · \(peer.rawValue)"
}

/// One event loop thread; the benchmark thread drives it from outside.
let nioGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let nioLoop = nioGroup.next()

/// Continuations parked by `async/await` tasks until the benchmark resumes them.
final class ContinuationStore: Sendable {
    private let parked = Mutex<[CheckedContinuation<Int, Never>]>([])

    init(capacity: Int) {
        parked.withLock { $0.reserveCapacity(capacity) }
    }

    func park(_ continuation: CheckedContinuation<Int, Never>) {
        parked.withLock { $0.append(continuation) }
    }

    /// Resumes every parked continuation, the n-th with `n`.
    func resumeAll() {
        let continuations = parked.withLock { parked in
            defer { parked.removeAll(keepingCapacity: true) }
            return parked
        }
        for (index, continuation) in continuations.enumerated() {
            continuation.resume(returning: index)
        }
    }
}

/// Runs `body` on a new thread with a 64 MiB stack and waits for it.
func onLargeStack(_ body: @escaping @Sendable () -> Void) {
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        finished.signal()
    }
    thread.stackSize = 64 << 20
    thread.start()
    finished.wait()
}
