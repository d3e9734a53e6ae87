// An interleaved comparison of the transports, steadier than benchmarks run
// one after another (the machine's state drifts between them):
//
//     swift run --package-path Benchmarks -c release TransportInterleaved [rounds] [client]
//     swift run --package-path Benchmarks -c release TransportInterleaved write-body <file>
//
// (`client`, a client's name or a part of names, runs those clients alone: for profiling.)
//
// Each round runs, one after the other, against LoopbackServer's 2 KiB JSON:
// raw AsyncHTTPClient (its own `execute(request:)`, completion on the event
// loop), raw AsyncHTTPClient plus a `queue.async` hop, raw AsyncHTTPClient
// plus what the design cannot do without (a hop off the event loop, where
// the `HTTPURLResponse` the contract hands out is built, and a hop to the
// handler's queue), the transport alone
// (`startAttempt`, completion on its callback queue), DeferredQueue's
// `responseData(queue:)` and `serializingDecodable(_:)` over
// AsyncHTTPClientTransport, and `responseData(queue:)` over
// URLSessionTransport — sequentially and 64 at once. It prints each client's
// median over the rounds, its ratio to raw AsyncHTTPClient, and requests per
// second. The raw client has the transport's own configuration. With
// `DQ_BENCH_URL` set, the requests go to that URL (an nginx serving the same
// 2,048 bytes; see BENCHMARKS.md) instead of the in-process LoopbackServer.
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
/// One client per raw variant: a pool shared between them leaves connections
/// on whichever event loop another variant's traffic opened them, and a
/// request whose idle connection is on another loop than its callback's
/// pays a hop per read (see the Peers harness).
func makeRawClient() -> HTTPClient {
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .enabled(limit: .none))
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.tracing.tracer = nil   // as the transport's own client, with no tracer bootstrapped
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}
let rawClients = (plain: makeRawClient(), hop: makeRawClient(), response: makeRawClient())
let ahcTransport = AsyncHTTPClientTransport()
let ahcSession = Session(transport: AsyncHTTPClientTransport())
/// Every request's handlers on the transport's callback queue, as before
/// `serializationQueue` existed: no hop between completion and validation.
let funnelledSession: Session = {
    let transport = AsyncHTTPClientTransport()
    return Session(transport: transport, serializationQueue: transport.callbackQueue)
}()
let urlSessionSession = Session(configuration: .default)
let handlerQueue = DispatchQueue(label: "TransportInterleaved.handlers")
let serializationQueue = DispatchQueue(label: "TransportInterleaved.serialization")

enum Client: String, CaseIterable {
    case raw = "raw AsyncHTTPClient"
    case rawWithHop = "raw AsyncHTTPClient + queue.async"
    case rawWithResponse = "raw AHC + HTTPURLResponse + 2 hops"
    case transportOnly = "AHC transport alone (startAttempt)"
    case responseData = "responseData · AHC transport"
    case funnelled = "responseData · AHC, on the callback queue"
    case decodable = "serializingDecodable · AHC transport"
    case urlSession = "responseData · URLSession transport"

    /// One GET; `done` runs when its body has arrived (and, for
    /// `serializingDecodable`, was decoded).
    func get(_ done: @escaping @Sendable () -> Void) {
        let expected = fixture.body.count
        switch self {
        case .raw, .rawWithHop, .rawWithResponse:
            let request: HTTPClient.Request
            do { request = try HTTPClient.Request(url: fixture.url.absoluteString) } catch { fatalError("\(error)") }
            let client = self == .raw ? rawClients.plain : self == .rawWithHop ? rawClients.hop : rawClients.response
            client.execute(request: request).whenComplete { result in
                guard case .success(let response) = result, response.body?.readableBytes == expected else {
                    fatalError("raw GET failed: \(result)")
                }
                switch self {
                case .raw: done()
                case .rawWithResponse:
                    // The floor of the design: off the event loop to build the
                    // HTTPURLResponse the contract hands out (and, in the
                    // session, to validate and serialize), then to the handler's queue.
                    serializationQueue.async {
                        var fields: [String: String] = [:]
                        for (name, value) in response.headers { fields[name] = value }
                        let converted = HTTPURLResponse(
                            url: fixture.url, statusCode: Int(response.status.code), httpVersion: "HTTP/1.1", headerFields: fields
                        )
                        handlerQueue.async { withExtendedLifetime(converted) { done() } }
                    }
                default: handlerQueue.async { done() }
                }
            }
        case .transportOnly:
            let attempt = HTTPTransportAttempt(request: URLRequest(url: fixture.url), collectsBody: true)
            _ = ahcTransport.startAttempt(attempt, events: Completion(expected: expected, done: done))
        case .responseData, .funnelled, .urlSession:
            let session = self == .responseData ? ahcSession : self == .funnelled ? funnelledSession : urlSessionSession
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
    func didReceive(response: HTTPURLResponse) {
        precondition(response.statusCode == 200, "transport GET failed: status \(response.statusCode)")
    }
    func didReceive(data: Data, handled: (@Sendable () -> Void)?) { handled?() }
    func didSend(bytes: Int64, of expected: Int64?) {}
    func didDownload(bytes: Int64, of expected: Int64?) {}
    func didFinishDownloading(to file: URL) {}
    func didComplete(body: Data?, error: (any Error)?) {
        precondition(error == nil && body?.count == expected, "transport GET failed: \(String(describing: error))")
        done()
    }
}

// `write-body <file>`: the document the clients expect, for an outside server.
if CommandLine.arguments.dropFirst().first == "write-body", let path = CommandLine.arguments.dropFirst(2).first {
    try fixture.body.write(to: URL(fileURLWithPath: path))
    exit(0)
}

let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 6
let only = CommandLine.arguments.dropFirst(2).first
// A client's exact name, or a part of names.
let clients = Client(rawValue: only ?? "").map { [$0] } ?? Client.allCases.filter { only.map($0.rawValue.contains) ?? true }
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
for client in [rawClients.plain, rawClients.hop, rawClients.response] { try client.syncShutdown() }
