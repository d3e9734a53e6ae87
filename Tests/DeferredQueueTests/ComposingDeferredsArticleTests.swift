import Dispatch
import LockSupport
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

/// The examples of the DocC article ComposingDeferreds.md, copied verbatim,
/// so the article cannot drift from the API. `print` is shadowed below to
/// record what the examples print.
@Suite("ComposingDeferreds article examples behave as documented", .serialized)
struct ComposingDeferredsArticleTests {
    @Test func tapObservesAndPassesThrough() async throws {
        printed.reset()
        let answer = Deferred(value: 41)
            .tap { result in print("got", result) }
            .then { $0 + 1 }
        #expect(try await answer.value == 42)
        #expect(printed.lines == ["got success(41)"])
    }

    @Test func getRunsASideEffect() async throws {
        printed.reset()
        let saved = Deferred(value: "report.txt")
            .get { name in
                guard name.hasSuffix(".txt") else { throw SaveError.notText }
                print("saving", name)
            }
        #expect(try await saved.value == "report.txt")
        #expect(printed.lines == ["saving report.txt"])
    }

    @Test func catchWithAPolicyIgnoresTheCancellation() async {
        printed.reset()
        let (download, resolver) = Deferred<Int>.pending()
        resolver.onCancel { print("stopping the transfer") }
        download.catch(policy: .allErrorsExceptCancellation) { error in
            print("download failed:", error)   // not called: the user cancelled
        }
        download.cancel()
        // Wait behind the catch handler (same queue, registered later).
        #expect(await settled(download) == .cancelled)
        #expect(printed.lines == ["stopping the transfer"])
    }

    @Test func boundedAllKeepsInputOrder() async throws {
        let squares = Deferred.all(1...10, maxConcurrent: 3) { n in
            Deferred { resolve, _ in
                DispatchQueue.global().async { resolve(n * n) }
            }
        }
        #expect(try await squares.value == [1, 4, 9, 16, 25, 36, 49, 64, 81, 100])
    }

    @Test func retryWithBackoffGetsThereOnTheThirdCall() async throws {
        let service = FlakyService()
        let reply = Deferred.retry(attempts: 5, delay: 0.01, backoff: 2, maximumDelay: 1,
                                   when: { error in error as? ServiceError == .busy }) {
            service.fetch()
        }
        #expect(try await reply.value == "ok after 3 calls")
    }

    @Test func aDeferredWaitingOnItselfRejectsWithCycle() async {
        let (trigger, resolver) = Deferred<Int>.pending()
        let looped = Job().start(after: trigger)
        resolver.fulfill(1)
        #expect(await settled(looped, within: 120) == .other("\(DeferredError.cycle)"))
    }
}

// MARK: - The article's types, verbatim

private enum SaveError: Error { case notText }

private enum ServiceError: Error { case busy, forbidden }

private final class FlakyService: Sendable {
    private let calls = Mutex(0)

    func fetch() -> Deferred<String> {
        let call = calls.withLock { calls in calls += 1; return calls }
        return call < 3 ? Deferred(error: ServiceError.busy) : Deferred(value: "ok after \(call) calls")
    }
}

private final class Job: Sendable {
    private let current = Mutex<Deferred<Int>?>(nil)

    func start(after trigger: Deferred<Int>) -> Deferred<Int> {
        let step = trigger.then { _ in
            // A bug: the step returns the deferred it is meant to settle.
            self.current.withLock { $0 } ?? Deferred(value: 0)
        }
        current.withLock { $0 = step }
        return step
    }
}

// MARK: - Recording `print`

private final class PrintLog: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock(owner: self) { $0.append(line) } }
    func reset() { storage.withLock(owner: self) { $0 = [] } }
    var lines: [String] { storage.withLock(owner: self) { $0 } }
}

private let printed = PrintLog()

/// Shadows `Swift.print` in this file: the examples' output is recorded.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    printed.append(items.map { "\($0)" }.joined(separator: separator))
}
