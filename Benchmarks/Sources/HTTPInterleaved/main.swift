// An interleaved A/B of the HTTP clients, steadier than benchmarks run one
// after another (the machine's state drifts between them):
//
//     swift run --package-path Benchmarks -c release HTTPInterleaved [rounds]
//
// Each round runs, one after the other, raw URLSession, raw URLSession plus a
// `queue.async` hop to a handler queue (what any API that promises a `queue:`
// pays), raw URLSession with a delegate collecting the body (how the
// URLSession transport runs its tasks), and DeferredQueue's
// `responseData(queue:)` — sequentially and 64 at once — against
// LoopbackServer, on the same cache-less configuration. It prints each
// client's median over the rounds and its ratio to raw URLSession.
import BenchmarkSupport
import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let fixture = try HTTPFixture()
let rawSession = URLSession(configuration: {
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = nil
    return configuration
}())
let session = Session(configuration: .default)

/// Collects each task's body and calls its `done` at completion; its state is
/// touched only on `delegateQueue` (serial), which is what makes it Sendable.
final class CollectingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let delegateQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    private var bodies: [Int: Data] = [:]
    private var completions: [Int: @Sendable () -> Void] = [:]

    /// Registers `done` for `task` and resumes it, on the delegate queue.
    func start(_ task: URLSessionDataTask, _ done: @escaping @Sendable () -> Void) {
        delegateQueue.addOperation {
            self.completions[task.taskIdentifier] = done
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bodies[dataTask.taskIdentifier, default: Data()].append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let body = bodies.removeValue(forKey: task.taskIdentifier)
        precondition(error == nil && body?.count == fixture.body.count, "delegate GET failed")
        completions.removeValue(forKey: task.taskIdentifier)?()
    }
}
let collecting = CollectingDelegate()
let delegateSession = URLSession(configuration: {
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = nil
    return configuration
}(), delegate: collecting, delegateQueue: collecting.delegateQueue)
let handlerQueue = DispatchQueue(label: "HTTPInterleaved.handlers")

enum Client: String, CaseIterable {
    case raw = "raw URLSession"
    case rawWithHop = "raw URLSession + queue.async"
    case rawDelegate = "raw URLSession, delegate"
    case responseData = "responseData(queue:)"

    /// One GET; `done` runs when its body has arrived.
    func get(_ done: @escaping @Sendable () -> Void) {
        let expected = fixture.body.count
        switch self {
        case .raw:
            rawSession.dataTask(with: fixture.url) { data, _, _ in
                precondition(data?.count == expected, "raw GET failed")
                done()
            }.resume()
        case .rawWithHop:
            rawSession.dataTask(with: fixture.url) { data, _, _ in
                precondition(data?.count == expected, "raw GET failed")
                handlerQueue.async { done() }
            }.resume()
        case .rawDelegate:
            collecting.start(delegateSession.dataTask(with: fixture.url), done)
        case .responseData:
            session.request(fixture.url).responseData(queue: handlerQueue) { response in
                precondition(response.value?.count == expected, "responseData failed: \(response.result)")
                done()
            }
        }
    }

    /// Microseconds per request over `requests` requests, `concurrency` at a time.
    func measure(requests: Int, concurrency: Int) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<(requests / concurrency) {
            let done = Countdown(concurrency)
            for _ in 0..<concurrency { get { done.arrive() } }
            done.wait()
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(requests) / 1_000
    }
}

// `HTTPInterleaved only <client> <requests> <concurrency>` runs one client
// alone (its name contains <client>), for callgrind: instructions per request
// are the difference of two such runs divided by the difference in requests.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "only", arguments.count == 4, let requests = Int(arguments[2]), let concurrency = Int(arguments[3]),
   let client = Client.allCases.first(where: { $0.rawValue.contains(arguments[1]) }) {
    _ = client.measure(requests: requests, concurrency: concurrency)
    exit(0)
}
let rounds = arguments.first.flatMap(Int.init) ?? 6
for (label, requests, concurrency) in [("sequential", 2_000, 1), ("64 concurrent", 3_200, 64)] {
    for client in Client.allCases { _ = client.measure(requests: 300, concurrency: concurrency) }   // warm up
    var samples: [Client: [Double]] = [:]
    for _ in 0..<rounds {
        for client in Client.allCases {
            samples[client, default: []].append(client.measure(requests: requests, concurrency: concurrency))
        }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let raw = median(samples[.raw] ?? [1])
    print("\(label) GET 2 KiB, median of \(rounds) interleaved rounds:")
    for client in Client.allCases {
        let value = median(samples[client] ?? [0])
        print("  \(client.rawValue.padding(toLength: 30, withPad: " ", startingAt: 0)) "
              + String(format: "%7.1f µs/request  %.2f×", value, value / raw))
    }
}
