import Benchmark
import BenchmarkSupport
import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// HTTP against LoopbackServer on 127.0.0.1 (keep-alive), a 2 KiB JSON body,
// one request at a time and 64 at once. Each DeferredQueue client has a raw
// URLSession peer doing the same work:
//   responseData(queue:)               vs dataTask(with:completionHandler:)
//   serializingDecodable(_:).value     vs try await data(from:) + JSONDecoder
// Both sides use a default URLSessionConfiguration without URLCache: on Linux
// DeferredQueue's Session drops the cache (see URLSessionTransport.transportConfiguration),
// so the raw peers do too; one more row shows raw URLSession with the cache.

/// The server and clients, shared by every benchmark of this process.
let fixture = try! HTTPFixture() // swiftlint:disable:this force_try
let rawSession = URLSession(configuration: {
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = nil
    return configuration
}())
let rawCachingSession = URLSession(configuration: .default)
let session = Session(configuration: .default)
let handlerQueue = DispatchQueue(label: "DeferredQueueBenchmarks.http.handlers")

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        // Enough to open the connection and warm the thread pools, so the
        // first client measured is not penalised for going first.
        warmupIterations: 300,
        maxDuration: .seconds(3),
        maxIterations: 2_000
    )
    registerSequential()
    registerConcurrent()
}

/// Raw URLSession: one GET, completion handler on the session's delegate queue.
func rawGET(decode: Bool, then done: @escaping @Sendable () -> Void) {
    rawSession.dataTask(with: fixture.url) { data, _, error in
        precondition(error == nil && data?.count == fixture.body.count, "raw GET failed: \(String(describing: error))")
        if decode, let data {
            blackHole(try? JSONDecoder().decode(HTTPFixture.Payload.self, from: data))
        }
        done()
    }.resume()
}

/// Raw URLSession with async/await: one GET, decoded — the peer of `serializingDecodable`.
func rawAsyncDecodedGET() async throws -> HTTPFixture.Payload {
    let (data, _) = try await rawSession.data(from: fixture.url)
    return try JSONDecoder().decode(HTTPFixture.Payload.self, from: data)
}

/// DeferredQueue: one GET, `responseData` on a private serial queue.
func responseDataGET(then done: @escaping @Sendable () -> Void) {
    session.request(fixture.url).responseData(queue: handlerQueue) { response in
        precondition(response.value?.count == fixture.body.count, "responseData failed: \(response.result)")
        done()
    }
}

/// DeferredQueue: one GET awaited through `serializingDecodable`.
func decodableGET() async throws -> HTTPFixture.Payload {
    try await session.request(fixture.url).serializingDecodable(HTTPFixture.Payload.self).value
}

func registerSequential() {
    let scenario = "HTTP sequential GET 2 KiB"

    Benchmark("\(scenario) · raw URLSession") { _ in
        let done = Countdown(1)
        rawGET(decode: false) { done.arrive() }
        done.wait()
    }

    Benchmark("\(scenario) · raw URLSession with URLCache") { _ in
        let done = Countdown(1)
        rawCachingSession.dataTask(with: fixture.url) { data, _, _ in
            precondition(data?.count == fixture.body.count, "raw GET failed")
            done.arrive()
        }.resume()
        done.wait()
    }

    Benchmark("\(scenario) · raw URLSession + JSONDecoder") { _ in
        let done = Countdown(1)
        rawGET(decode: true) { done.arrive() }
        done.wait()
    }

    Benchmark("\(scenario) · raw URLSession async + JSONDecoder") { _ in
        blackHole(try await rawAsyncDecodedGET())
    }

    Benchmark("\(scenario) · responseData") { _ in
        let done = Countdown(1)
        responseDataGET { done.arrive() }
        done.wait()
    }

    Benchmark("\(scenario) · serializingDecodable async") { _ in
        blackHole(try await decodableGET())
    }
}

func registerConcurrent() {
    let scenario = "HTTP 64 concurrent GET 2 KiB"
    let count = Workload.concurrentRequests
    let configuration = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 20, maxIterations: 300)

    Benchmark("\(scenario) · raw URLSession", configuration: configuration) { _ in
        let done = Countdown(count)
        for _ in 0..<count { rawGET(decode: false) { done.arrive() } }
        done.wait()
    }

    Benchmark("\(scenario) · raw URLSession + JSONDecoder", configuration: configuration) { _ in
        let done = Countdown(count)
        for _ in 0..<count { rawGET(decode: true) { done.arrive() } }
        done.wait()
    }

    Benchmark("\(scenario) · raw URLSession async + JSONDecoder", configuration: configuration) { _ in
        try await withThrowingTaskGroup(of: HTTPFixture.Payload.self) { group in
            for _ in 0..<count { group.addTask { try await rawAsyncDecodedGET() } }
            for try await payload in group { blackHole(payload) }
        }
    }

    Benchmark("\(scenario) · responseData", configuration: configuration) { _ in
        let done = Countdown(count)
        for _ in 0..<count { responseDataGET { done.arrive() } }
        done.wait()
    }

    Benchmark("\(scenario) · serializingDecodable async", configuration: configuration) { _ in
        try await withThrowingTaskGroup(of: HTTPFixture.Payload.self) { group in
            for _ in 0..<count { group.addTask { try await decodableGET() } }
            for try await payload in group { blackHole(payload) }
        }
    }
}
