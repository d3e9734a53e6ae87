// The session layer's cost per request, for callgrind: `n` sequential GETs
// on MockTransport (no socket, no server), each collected and handed to
// `responseData` (with `validate`, after `validate()`; with `await`, awaited
// as `serializingData().value`).
// What changes between two builds is the session's own code: request state,
// attempts, serialization, handler delivery.
//
//     swift build -c release --package-path Benchmarks --product SessionInstructions
//     valgrind --tool=callgrind <binary> 1     # start-up alone
//     valgrind --tool=callgrind <binary> 401   # (Ir(401) − Ir(1)) / 400 per request
//     valgrind --tool=callgrind <binary> 401 await
//     valgrind --tool=callgrind <binary> 401 validate
import DeferredQueue
import DeferredQueueTesting
import Dispatch
import Foundation

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 401
let body = Data(repeating: 0x61, count: 766)
let session = Session(
    transport: MockTransport(replying: .status(200, headers: ["Content-Type": "application/json"], body: body))
)
let url = URL(string: "http://127.0.0.1/json")!
let done = DispatchSemaphore(value: 0)
let validates = CommandLine.arguments.dropFirst(2).first == "validate"

/// Starts request `remaining`, and the next one from its handler.
func next(_ remaining: Int) {
    guard remaining > 0 else {
        done.signal()
        return
    }
    let request = validates ? session.request(url).validate() : session.request(url)
    request.responseData(queue: .global()) { response in
        precondition(response.value?.count == body.count, "request failed: \(String(describing: response.error))")
        next(remaining - 1)
    }
}

if CommandLine.arguments.dropFirst(2).first == "await" {
    // Detached: top-level code runs on the main actor, which `done.wait()` blocks.
    Task.detached {
        for _ in 0..<count {
            let value = try await session.request(url).serializingData().value
            precondition(value.count == body.count, "request failed")
        }
        done.signal()
    }
} else {
    next(count)
}
done.wait()
