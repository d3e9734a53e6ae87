// Create, chain, await and combine deferreds; the program ends by itself.
// Run: swift run DeferredTour
import Dispatch
import DeferredQueue

enum TourError: Error { case empty }

// Create: settled now, settled later through a resolver, or by async work.
let ready = Deferred(value: 42)
let (pending, resolver) = Deferred<String>.pending()
let computed = Deferred<Int> { resolve, _ in
    DispatchQueue.global().async { resolve(6 * 7) }
}
let fromAsync = Deferred { () async throws -> Int in
    try await Task.sleep(for: .milliseconds(10))
    return 7
}
let failed = Deferred<Int>(error: TourError.empty)

// Chain: handlers run on the deferred's own serial queue, in order.
let length = pending
    .then { text -> Int in
        guard !text.isEmpty else { throw TourError.empty }   // a throw rejects
        return text.count
    }
    .recover { _ in 0 }                          // a rejection becomes a value
    .tap { result in print("length:", result) }  // observes, passes through
    .finally { print("chain done") }
resolver.fulfill("suspended queues")
let doubled = ready.then { n in Deferred(value: n * 2) }   // a returned deferred is waited for
let logged = failed.catch { error in print("failed:", error) }   // observes; still rejected

// Await: `value` throws a rejection; `result` never throws.
print(try await length.value)                    // 16
print(try await doubled.value)                   // 84
print(await logged.result)                       // failure(…empty)

// Combine.
print(try await Deferred.all([ready, computed, fromAsync]).value)   // [42, 42, 7]
print(try await Deferred.allSettled([ready, failed]).value)         // [success(42), failure(…empty)]
print(try await Deferred.any([failed, fromAsync]).value)            // 7
print(try await zip(ready, pending).value)                          // (42, "suspended queues")
print(try await Deferred.race([fromAsync, ready.delay(1)]).value)   // 7
print(await ready.delay(10).timeout(0.05).result)                   // failure(…timedOut)
print(try await Deferred.retry(attempts: 3, delay: 0.01) { computed }.value)   // 42
