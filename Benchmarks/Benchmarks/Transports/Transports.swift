import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import DeferredQueue
import DeferredQueueAsyncHTTPClient
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The transports against LoopbackServer on 127.0.0.1 (keep-alive), a 2 KiB
// JSON body, one request at a time and 64 at once, with malloc counts:
//   raw AsyncHTTPClient `execute(request:)` (the floor)
//   responseData(queue:) and serializingDecodable(_:) over AsyncHTTPClientTransport
//   responseData(queue:) over URLSessionTransport
// For latency ratios prefer TransportInterleaved (interleaved rounds); this
// target's figure of interest is mallocs per request.

let fixture = try! HTTPFixture() // swiftlint:disable:this force_try
let rawClient: HTTPClient = {
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .enabled(limit: .none))
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()
let ahcSession = Session(transport: AsyncHTTPClientTransport())
let urlSessionSession = Session(configuration: .default)
let handlerQueue = DispatchQueue(label: "DeferredQueueBenchmarks.transports.handlers")

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 300,
        maxDuration: .seconds(3),
        maxIterations: 2_000
    )
    register(scenario: "Transports sequential GET 2 KiB", count: 1, configuration: nil)
    register(
        scenario: "Transports 64 concurrent GET 2 KiB", count: Workload.concurrentRequests,
        configuration: .init(timeUnits: .microseconds, warmupIterations: 20, maxIterations: 300)
    )
}

/// Raw AsyncHTTPClient: one GET, completion on the event loop.
func rawGET(then done: @escaping @Sendable () -> Void) {
    guard let request = try? HTTPClient.Request(url: fixture.url.absoluteString) else { preconditionFailure("bad URL") }
    rawClient.execute(request: request).whenComplete { result in
        guard case .success(let response) = result, response.body?.readableBytes == fixture.body.count else {
            preconditionFailure("raw GET failed: \(result)")
        }
        done()
    }
}

/// DeferredQueue: one GET, `responseData` on a private serial queue.
func responseDataGET(on session: Session, then done: @escaping @Sendable () -> Void) {
    session.request(fixture.url).responseData(queue: handlerQueue) { response in
        precondition(response.value?.count == fixture.body.count, "responseData failed: \(response.result)")
        done()
    }
}

func register(scenario: String, count: Int, configuration: Benchmark.Configuration?) {
    func run(_ name: String, _ get: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        let body: Benchmark.BenchmarkClosure = { _ in
            let done = Countdown(count)
            for _ in 0..<count { get { done.arrive() } }
            done.wait()
        }
        Benchmark("\(scenario) · \(name)", configuration: configuration ?? Benchmark.defaultConfiguration, closure: body)
    }
    run("raw AsyncHTTPClient") { rawGET(then: $0) }
    run("responseData · AHC transport") { responseDataGET(on: ahcSession, then: $0) }
    run("serializingDecodable · AHC transport") { done in
        ahcSession.request(fixture.url).serializingDecodable(HTTPFixture.Payload.self)
            .then { payload in
                precondition(!payload.items.isEmpty, "serializingDecodable decoded nothing")
                done()
            }
            .catch { error in preconditionFailure("serializingDecodable failed: \(error)") }
    }
    run("responseData · URLSession transport") { responseDataGET(on: urlSessionSession, then: $0) }
}
