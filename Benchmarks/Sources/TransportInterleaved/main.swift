// An interleaved comparison of the transports, steadier than benchmarks run
// one after another (the machine's state drifts between them):
//
//     swift run --package-path Benchmarks -c release TransportInterleaved [rounds] [client]
//
// (`client`, a part of a client's name, runs that client alone: for profiling.)
//
// Each round runs, one after the other, against LoopbackServer's 2 KiB JSON:
// raw AsyncHTTPClient (its own `execute(request:)`, completion on the event
// loop), raw AsyncHTTPClient plus a `queue.async` hop, the transport alone
// (`startAttempt`, completion on its callback queue), DeferredQueue's
// `responseData(queue:)` and `serializingDecodable(_:)` over
// AsyncHTTPClientTransport, and `responseData(queue:)` over
// URLSessionTransport — sequentially and 64 at once. It prints each client's
// median over the rounds, its ratio to raw AsyncHTTPClient, and requests per
// second. The raw client has the transport's own configuration.
import AsyncHTTPClient
import BenchmarkSupport
import DeferredQueue
import DeferredQueueAsyncHTTPClient
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let fixture = try HTTPFixture()
let rawClient: HTTPClient = {
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .enabled(limit: .none))
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()
let ahcTransport = AsyncHTTPClientTransport()
let ahcSession = Session(transport: AsyncHTTPClientTransport())
let urlSessionSession = Session(configuration: .default)
let handlerQueue = DispatchQueue(label: "TransportInterleaved.handlers")

enum Client: String, CaseIterable {
    case raw = "raw AsyncHTTPClient"
    case rawWithHop = "raw AsyncHTTPClient + queue.async"
    case transportOnly = "AHC transport alone (startAttempt)"
    case responseData = "responseData · AHC transport"
    case decodable = "serializingDecodable · AHC transport"
    case urlSession = "responseData · URLSession transport"

    /// One GET; `done` runs when its body has arrived (and, for
    /// `serializingDecodable`, was decoded).
    func get(_ done: @escaping @Sendable () -> Void) {
        let expected = fixture.body.count
        switch self {
        case .raw, .rawWithHop:
            let request: HTTPClient.Request
            do { request = try HTTPClient.Request(url: fixture.url.absoluteString) } catch { fatalError("\(error)") }
            rawClient.execute(request: request).whenComplete { result in
                guard case .success(let response) = result, response.body?.readableBytes == expected else {
                    fatalError("raw GET failed: \(result)")
                }
                if self == .raw { done() } else { handlerQueue.async { done() } }
            }
        case .transportOnly:
            let attempt = HTTPTransportAttempt(request: URLRequest(url: fixture.url), collectsBody: true)
            _ = ahcTransport.startAttempt(attempt, events: Completion(expected: expected, done: done))
        case .responseData, .urlSession:
            let session = self == .responseData ? ahcSession : urlSessionSession
            session.request(fixture.url).responseData(queue: handlerQueue) { response in
                precondition(response.value?.count == expected, "responseData failed: \(response.result)")
                done()
            }
        case .decodable:
            ahcSession.request(fixture.url).serializingDecodable(HTTPFixture.Payload.self)
                .then { payload in
                    precondition(!payload.items.isEmpty, "serializingDecodable decoded nothing")
                    done()
                }
                .catch { error in fatalError("serializingDecodable failed: \(error)") }
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

/// The transport's events for `transportOnly`: `done` at completion, on the callback queue.
final class Completion: HTTPTransportEvents {
    let expected: Int
    let done: @Sendable () -> Void
    init(expected: Int, done: @escaping @Sendable () -> Void) {
        self.expected = expected
        self.done = done
    }
    func didReceive(response: HTTPURLResponse) {}
    func didReceive(data: Data) {}
    func didSend(bytes: Int64, of expected: Int64?) {}
    func didDownload(bytes: Int64, of expected: Int64?) {}
    func didFinishDownloading(to file: URL) {}
    func didComplete(response: HTTPURLResponse?, body: Data?, error: (any Error)?) {
        precondition(response?.statusCode == 200 && body?.count == expected, "transport GET failed: \(String(describing: error))")
        done()
    }
}

let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 6
let only = CommandLine.arguments.dropFirst(2).first
let clients = Client.allCases.filter { only.map($0.rawValue.contains) ?? true }
for (label, requests, concurrency) in [("sequential", 2_000, 1), ("64 concurrent", 3_200, 64)] {
    for client in clients { _ = client.measure(requests: 320, concurrency: concurrency) }   // warm up
    var samples: [Client: [Double]] = [:]
    for _ in 0..<rounds {
        for client in clients {
            samples[client, default: []].append(client.measure(requests: requests, concurrency: concurrency))
        }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let raw = median(samples[.raw] ?? [1])
    let viaURLSession = median(samples[.urlSession] ?? [1])
    print("\(label) GET 2 KiB, median of \(rounds) interleaved rounds:")
    for client in clients {
        let value = median(samples[client] ?? [0])
        print("  \(client.rawValue.padding(toLength: 38, withPad: " ", startingAt: 0)) "
              + String(format: "%7.1f µs/request  %5.2f× raw AHC  %8.0f requests/s  %5.2f× URLSession's requests/s",
                       value, value / raw, 1e6 / value, viaURLSession / value))
    }
}
try rawClient.syncShutdown()
