// The examples of the DocC article "Composing Deferreds", as one program.
// Run: swift run ComposingDeferreds
import Dispatch
import DeferredQueue
import Synchronization

// snippet.tap
let answer = Deferred(value: 41)
    .tap { result in print("got", result) }
    .then { $0 + 1 }
// prints "got success(41)"; answer fulfils with 42
// snippet.end
// snippet.hide
print(try await answer.value)
// snippet.show

// snippet.get
enum SaveError: Error { case notText }

let saved = Deferred(value: "report.txt")
    .get { name in
        guard name.hasSuffix(".txt") else { throw SaveError.notText }
        print("saving", name)
    }
// prints "saving report.txt"; saved fulfils with "report.txt"
// snippet.end
// snippet.hide
print(try await saved.value)
// snippet.show

// snippet.catchPolicy
let (download, resolver) = Deferred<Int>.pending()
resolver.onCancel { print("stopping the transfer") }
let observed = download.catch(policy: .allErrorsExceptCancellation) { error in
    print("download failed:", error)   // not called: the user cancelled
}
download.cancel()
// prints "stopping the transfer" only
// snippet.end
// snippet.hide
print(await observed.result)
// snippet.show

// snippet.boundedAll
let squares = Deferred.all(1...10, maxConcurrent: 3) { n in
    Deferred { resolve, _ in
        DispatchQueue.global().async { resolve(n * n) }
    }
}
// fulfils with [1, 4, 9, 16, 25, 36, 49, 64, 81, 100]
// snippet.end
// snippet.hide
print(try await squares.value)
// snippet.show

// snippet.retry
enum ServiceError: Error { case busy, forbidden }

final class FlakyService: Sendable {
    private let calls = Mutex(0)

    func fetch() -> Deferred<String> {
        let call = calls.withLock { calls in calls += 1; return calls }
        return call < 3 ? Deferred(error: ServiceError.busy) : Deferred(value: "ok after \(call) calls")
    }
}

let service = FlakyService()
let reply = Deferred.retry(attempts: 5, delay: 0.01, backoff: 2, maximumDelay: 1,
                           when: { error in error as? ServiceError == .busy }) {
    service.fetch()
}
// waits 0.01 s, then 0.02 s; reply fulfils with "ok after 3 calls"
// snippet.end
// snippet.hide
print(try await reply.value)
// snippet.show

// snippet.cycle
final class Job: Sendable {
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

let (trigger, triggerResolver) = Deferred<Int>.pending()
let looped = Job().start(after: trigger)
triggerResolver.fulfill(1)
// looped rejects with DeferredError.cycle
// snippet.end
// snippet.hide
print(await looped.result)
// snippet.show
