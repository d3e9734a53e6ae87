import DeferredQueueTesting
import Dispatch
import LoopbackServer
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Deferred: races between registration and settlement")
struct ConcurrencyTests {
    @Test func settleOnceUnderThreeRacingSettlersWhileAnotherThreadRegisters() async {
        let count = 3_000
        let handlersEach = 5
        let pairs = (0..<count).map { _ in Deferred<Int>.pending() }
        let logs = (0..<count).map { _ in Recorder<(Int, Outcome<Int>)>() }
        let done = Latch(count: count * handlersEach)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<count {
                let (deferred, resolver) = pairs[index]
                switch thread {
                case 0: resolver.fulfill(index)
                case 1: resolver.reject(TestError(index))
                case 2: deferred.cancel()
                default:
                    for handler in 0..<handlersEach {
                        deferred.finally {}.then { value in
                            logs[index].append((handler, .value(value)))
                            done.arrive()
                        }.catch { error in
                            logs[index].append((handler, Outcome(.failure(error))))
                            done.arrive()
                        }
                    }
                }
            }
        }
        #expect(await done.wait())
        var failures = 0
        for index in 0..<count {
            let events = logs[index].events
            let outcomes = Set(events.map { "\($0.1)" })
            let allowed: Set<String> = ["\(Outcome<Int>.value(index))", "\(Outcome<Int>.error(TestError(index)))", "\(Outcome<Int>.cancelled)"]
            if events.map(\.0) != Array(0..<handlersEach) || outcomes.count != 1 || !outcomes.isSubset(of: allowed) {
                failures += 1
            }
        }
        #expect(failures == 0, "every handler once, in order, all seeing the single outcome")
    }

    // 100,000 pending chains are enough memory to disturb the tests that
    // measure resident memory, so this takes their gate.
    @Test func hundredThousandChainsSettledFromFourThreads() async {
        await MemoryHeavyWork.exclusively {
            let count = 100_000
            let resolvers = (0..<count).map { _ in Deferred<Int>.pending() }
            let sum = Atomic<Int>(0)
            let done = Latch(count: count)
            for (deferred, _) in resolvers {
                deferred.then { $0 + 1 }.then { value in
                    sum.add(value, ordering: .relaxed)
                    done.arrive()
                }
            }
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in stride(from: thread, to: count, by: 4) {
                    resolvers[index].resolver.fulfill(index)
                }
            }
            #expect(await done.wait())
            #expect(sum.load(ordering: .relaxed) == (0..<count).reduce(0) { $0 + $1 + 1 })
        }
    }

    @Test func registrationFromManyThreadsWhileSettling() async {
        let (deferred, resolver) = Deferred<Int>.pending()
        let perThread = Recorder<(Int, Int)>()
        let done = Latch(count: 4 * 500)
        DispatchQueue.concurrentPerform(iterations: 5) { thread in
            if thread == 4 {
                resolver.fulfill(9)
                return
            }
            for index in 0..<500 {
                deferred.then { _ in perThread.append((thread, index)); done.arrive() }
            }
        }
        #expect(await done.wait())
        // Registration order within each thread is kept.
        for thread in 0..<4 {
            #expect(perThread.events.filter { $0.0 == thread }.map(\.1) == Array(0..<500))
        }
    }
}
