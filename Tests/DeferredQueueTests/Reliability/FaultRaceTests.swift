import DeferredQueueTesting
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// The two faults that need many iterations to show up: `cancel()` racing the
/// task's completion, and the caller dropping a request the moment it exists.
@Suite("Fault matrix: cancel races and dropped requests, a thousand times each")
struct FaultRaceTests {
    /// Chains four handlers and a `serializingString` deferred onto `request`,
    /// logging `(iteration, handler, kind)`, then a sentinel that arrives at
    /// `done` (see ``ProbeReport`` for why the sentinel proves "exactly once").
    private static func chainHandlers(
        _ request: DataRequest, iteration: Int, log: Recorder<(Int, String, String)>, done: Latch
    ) {
        request
            .response(queue: handlerQueue) { log.append((iteration, "response", outcomeKind($0.result))) }
            .responseData(queue: handlerQueue) { log.append((iteration, "responseData", outcomeKind($0.result))) }
            .responseJSON(queue: handlerQueue) { log.append((iteration, "responseJSON", outcomeKind($0.result))) }
            .responseString(queue: handlerQueue) { log.append((iteration, "responseString", outcomeKind($0.result))) }
        request.serializingString().whenSettled { result in
            let kind = result.isSuccess ? "ok" : ((result.failure as? HTTPError)?.kind ?? "not an HTTPError")
            log.append((iteration, "serializingString", kind))
            done.arrive()
        }
        request.response(queue: handlerQueue) { _ in done.arrive() }
    }

    /// Groups the log by iteration: the handler names in delivery order and the set of kinds.
    private static func byIteration(_ log: Recorder<(Int, String, String)>) -> [Int: (names: [String], kinds: Set<String>)] {
        var grouped: [Int: (names: [String], kinds: Set<String>)] = [:]
        for (iteration, name, kind) in log.events {
            grouped[iteration, default: ([], [])].names.append(name)
            grouped[iteration, default: ([], [])].kinds.insert(kind)
        }
        return grouped
    }

    @Test func cancelRacingCompletionGivesEveryHandlerOneOutcomeAThousandTimes() async throws {
        let faults = try FaultServer()
        let session = Session()
        let iterations = 1_000
        let batch = 50
        let log = Recorder<(Int, String, String)>()
        for start in stride(from: 0, to: iterations, by: batch) {
            let done = Latch(count: batch * 2)
            for iteration in start..<start + batch {
                let req = session.request(faults.url("/ok"))
                Self.chainHandlers(req, iteration: iteration, log: log, done: done)
                // Spread the cancel over the ~millisecond a loopback request takes.
                let delay = DispatchTimeInterval.microseconds(iteration * 37 % 3_000)
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { req.cancel() }
            }
            #expect(await done.wait(seconds: 120), "batch from \(start) finished")
        }
        let grouped = Self.byIteration(log)
        let expectedNames = ProbeReport.handlers.sorted()
        let wrong = grouped.filter { $0.value.names.sorted() != expectedNames || $0.value.kinds.count != 1 }
        #expect(grouped.count == iterations)
        #expect(wrong.isEmpty, "each handler once, one outcome per request: \(wrong.prefix(3))")
        let kinds = grouped.values.reduce(into: [String: Int]()) { $0[$1.kinds.first ?? "none", default: 0] += 1 }
        #expect(Set(kinds.keys).isSubset(of: ["ok", "cancelled"]), "\(kinds)")
        print("cancel race over \(iterations) requests: \(kinds.sorted { $0.key < $1.key })")
        #expect(await eventually { session.runningRequestCount == 0 })
    }

    @Test func requestsDroppedRightAfterCreationNeverCrashAndTheirHandlersRunOnce() async throws {
        let faults = try FaultServer()
        let requests = WeakList<DataRequest>()
        let sessions = WeakList<Session>()
        let iterations = 1_000
        let withHandlers = (0..<iterations).filter { $0 % 3 != 0 }
        let log = Recorder<(Int, String, String)>()
        let done = Latch(count: withHandlers.count * 2)
        do {
            let session = Session()
            sessions.add(session)
            for iteration in 0..<iterations {
                // Every 100th goes silent and must end by its own 1 s timeout.
                let path = iteration % 100 == 99 ? "/never" : (iteration.isMultiple(of: 7) ? "/status/500" : "/ok")
                let req = session.request(faults.url(path), timeout: 1)
                requests.add(req)
                if iteration % 3 != 0 {
                    Self.chainHandlers(req, iteration: iteration, log: log, done: done)
                }
                // `req` goes out of scope here: the caller keeps nothing.
            }
        }
        #expect(await done.wait(seconds: 180))
        let grouped = Self.byIteration(log)
        let expectedNames = ProbeReport.handlers.sorted()
        #expect(grouped.count == withHandlers.count)
        #expect(grouped.values.allSatisfy { $0.names.sorted() == expectedNames }, "each handler exactly once")
        let kinds = Set(grouped.values.flatMap(\.kinds))
        // /status/500 makes responseJSON fail; /never times out.
        #expect(kinds.isSubset(of: ["ok", "jsonSyntax", "sessionTaskFailed(\(URLError.Code.timedOut.rawValue))"]), "\(kinds)")
        #expect(!kinds.contains("abandoned") && !kinds.contains("cancelled"), "a dropped request still completes")
        #expect(await eventually(within: 120) { requests.aliveCount == 0 }, "\(requests.aliveCount) requests alive")
        #expect(await eventually(within: 120) { sessions.aliveCount == 0 }, "the session went once its requests finished")
    }
}
