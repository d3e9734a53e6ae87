// Issue 27's table: DeferredQueue against the raw transports, in one process,
// in interleaved rounds (every client once per round, round after round), so
// that the machine's drift falls on every client alike.
//
//     swift run --package-path Benchmarks -c release Peers [rounds]
//     swift run --package-path Benchmarks -c release Peers cores [rounds] [requests] [megabytes]
//     swift run --package-path Benchmarks -c release Peers write-bodies <directory>
//     Peers once <client> <scenario> <requests>     (for callgrind; see Scripts/peer-instructions.sh)
//
// Clients: raw URLSession (`dataTask(with:completionHandler:)`, no URLCache,
// as the URLSession transport configures it; and collecting through delegate
// callbacks, as a client that limits a body's size must), raw AsyncHTTPClient (its
// `execute(request:)` future, its async `execute(_:timeout:)`, and collecting
// through a response delegate of the caller's, as a client that watches a body
// part by part must), and
// DeferredQueue's `responseData(queue:)` over each transport. Scenarios: 2,000
// sequential GETs of 2 KiB, 2,000 all in flight, 2,000 with 64 in flight, 200
// sequential GETs of 1 MiB; then resident bytes per in-flight request (2,000
// requests the server answers slowly, each client in a process of its own). Each cell: the median over the rounds of wall
// and CPU time per request (CPU: the whole process's user + system time, so
// an in-process server's share is in every client's figure; point
// `DQ_BENCH_BASE` at an nginx serving the same bodies, see BENCHMARKS.md, to
// keep it out). Then the every-core table (EveryCore.swift), which `Peers
// cores` prints alone.
//
// Environment: DQ_BENCH_CLIENTS (some clients and their raw peers; no
// every-core table), DQ_BENCH_SCENARIOS (some scenarios, by case name), and
// for `once`, DQ_BENCH_PRELUDE (a scenario run first, unmeasured; then the
// measured one's CPU per request is printed), DQ_RAW_HEADERS=1 (the raw
// AsyncHTTPClient peers send a session's default fields too).
import AsyncHTTPClient
import BenchmarkSupport
import DeferredQueue
import DeferredQueueAsyncHTTPClient
import Dispatch
import Foundation
import LoopbackServer
import NIOCore
import NIOHTTP1
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let small = HTTPFixture.makeBody(size: 2_048)
let bigBody = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
let server = try LoopbackServer(routes: [
    "/json": { _ in .json(data: small) },
    "/big": { _ in .response(status: 200, headers: [("Content-Type", "application/octet-stream")], body: bigBody) },
    "/held": { _ in .delayed(0.02, .json(data: small)) },
])
let base = ProcessInfo.processInfo.environment["DQ_BENCH_BASE"].flatMap(URL.init(string:)) ?? server.url("/json").deletingLastPathComponent()
let smallURL = base.appendingPathComponent("json"), bigURL = base.appendingPathComponent("big")
let heldURL = server.url("/held")

enum Scenario: String, CaseIterable {
    case sequential = "2,000 sequential GETs of 2 KiB"
    case allInFlight = "2,000 GETs all in flight"
    case window = "2,000 GETs, 64 in flight"
    case big = "200 sequential GETs of 1 MiB"

    var requests: Int { self == .big ? 200 : 2_000 }
    var inFlight: Int { switch self { case .sequential, .big: 1; case .allInFlight: 2_000; case .window: 64 } }
    var url: URL { self == .big ? bigURL : smallURL }
    var bodySize: Int { self == .big ? bigBody.count : small.count }
}

let rawSession: URLSession = {
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
}()
/// One client per raw AsyncHTTPClient peer. A pool shared between them left
/// connections on whichever event loop another peer's traffic had opened
/// them, and a request whose idle connection is on another loop than its
/// callback's pays a hop per read: which peer paid it changed from run to
/// run. (DeferredQueue's two AHC clients share their session's pool, whose
/// transport keeps quiet traffic on one loop: `EventLoopAffinity`.)
func makeRawClient() -> HTTPClient {
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .enabled(limit: .none))
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.tracing.tracer = nil   // as the transport's own client, with no tracer bootstrapped
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}
let rawClient = makeRawClient(), rawAsyncClient = makeRawClient(), rawDelegateClient = makeRawClient()
/// Collects each body through delegate callbacks, as any client that bounds a
/// body's size must on corelibs (URLSession has no limit of its own).
final class CollectingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `bodies` is only touched on the session's serial delegate queue.
    var bodies: [Int: (Data, @Sendable (Data) -> Void)] = [:]
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bodies[dataTask.taskIdentifier]?.0.append(data)
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let (body, done) = bodies.removeValue(forKey: task.taskIdentifier) else { return }
        done(body)
    }
}
let collectingDelegate = CollectingDelegate()
let delegateQueue: OperationQueue = {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    return queue
}()
let rawDelegateSession: URLSession = {
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = nil
    return URLSession(configuration: configuration, delegate: collectingDelegate, delegateQueue: delegateQueue)
}()
/// Collects each body through AsyncHTTPClient's delegate callbacks, as any
/// client that watches a body part by part must (a size limit, progress, a
/// stream): the delegate is then a type of the caller's module, for which
/// AsyncHTTPClient's generic request path is not specialised, as it is for
/// its own `ResponseAccumulator` behind `execute(request:)`.
final class CollectingAHCDelegate: HTTPClientResponseDelegate {
    typealias Response = Int
    private let body = Mutex<ByteBuffer?>(nil)
    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ part: ByteBuffer) -> EventLoopFuture<Void> {
        body.withLock { body in
            if body == nil { body = part } else { body!.writeImmutableBuffer(part) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }
    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int {
        body.withLock { $0?.readableBytes ?? 0 }
    }
}
let oursOnURLSession = Session()
/// `DQ_FUNNEL=1`: every request's handlers on the transport's callback queue
/// (a serial `serializationQueue`), to weigh the hop to a queue of their own;
/// `DQ_FUNNEL=pool`: every handler queue on the global pool, whatever queue
/// the handlers name (as before the handler lane), to weigh the lane.
let oursOnAHC: Session = {
    let transport = AsyncHTTPClientTransport()
    let funnel = ProcessInfo.processInfo.environment["DQ_FUNNEL"]
    return Session(transport: transport, serializationQueue: funnel == "1" ? transport.callbackQueue : funnel == "pool" ? DispatchQueue.global() : nil)
}()
let handlerQueue = DispatchQueue(label: "Peers.handlers")
/// `DQ_RAW_HEADERS=1`: the raw AsyncHTTPClient peers send the header fields a
/// `Session` adds to every request (Alamofire's defaults), to weigh what
/// sending them costs AsyncHTTPClient apart from what the session does.
let rawHeaders: NIOHTTP1.HTTPHeaders = ProcessInfo.processInfo.environment["DQ_RAW_HEADERS"] == "1"
    ? NIOHTTP1.HTTPHeaders(DeferredQueue.HTTPHeaders.default.map { ($0.name, $0.value) })
    : [:]

enum Client: String, CaseIterable {
    case rawURLSession = "raw URLSession"
    case rawURLSessionDelegate = "raw URLSession, delegate"
    case oursURLSession = "DeferredQueue · URLSession"
    case rawAHC = "raw AHC (future)"
    case rawAHCAsync = "raw AHC (async)"
    case rawAHCDelegate = "raw AHC, delegate"
    case oursAHC = "DeferredQueue · AHC"
    case oursAHCAsync = "DeferredQueue · AHC (async)"

    /// The raw transport this client's ratios are to.
    var raw: Client {
        switch self {
        case .rawURLSession, .rawURLSessionDelegate, .oursURLSession: .rawURLSession
        case .rawAHC, .rawAHCAsync, .rawAHCDelegate, .oursAHC, .oursAHCAsync: .rawAHC
        }
    }

    /// One GET of `url`; `done` once its whole body (`size` bytes) arrived.
    func get(_ url: URL, size: Int, done: @escaping @Sendable () -> Void) {
        switch self {
        case .rawURLSession:
            rawSession.dataTask(with: url) { data, _, error in
                guard data?.count == size else { fatalError("raw URLSession GET of \(url) failed: \(String(describing: error))") }
                done()
            }.resume()
        case .rawURLSessionDelegate:
            let task = rawDelegateSession.dataTask(with: url)
            delegateQueue.addOperation {
                collectingDelegate.bodies[task.taskIdentifier] = (Data(), { body in
                    guard body.count == size else { fatalError("raw URLSession delegate GET of \(url) failed: \(body.count) bytes") }
                    done()
                })
                task.resume()
            }
        case .rawAHC:
            rawClient.execute(request: Self.rawRequest(url)).whenComplete { result in
                guard case .success(let response) = result, response.body?.readableBytes == size else { fatalError("raw AHC GET failed: \(result)") }
                done()
            }
        case .rawAHCAsync:
            Task {
                do {
                    let response = try await rawAsyncClient.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
                    let body = try await response.body.collect(upTo: 4 << 20)
                    precondition(body.readableBytes == size, "raw AHC async GET: \(body.readableBytes) bytes")
                    done()
                } catch { fatalError("raw AHC async GET failed: \(error)") }
            }
        case .rawAHCDelegate:
            rawDelegateClient.execute(request: Self.rawRequest(url), delegate: CollectingAHCDelegate()).futureResult.whenComplete { result in
                guard case .success(let count) = result, count == size else { fatalError("raw AHC delegate GET failed: \(result)") }
                done()
            }
        case .oursURLSession, .oursAHC:
            (self == .oursAHC ? oursOnAHC : oursOnURLSession).request(url).responseData(queue: handlerQueue) { response in
                precondition(response.value?.count == size, "responseData failed: \(response.result)")
                done()
            }
        case .oursAHCAsync:
            Task {
                do {
                    let body = try await oursOnAHC.request(url).serializingData().value
                    precondition(body.count == size, "serializingData: \(body.count) bytes")
                    done()
                } catch { fatalError("serializingData failed: \(error)") }
            }
        }
    }

    /// The request the raw AsyncHTTPClient peers hand to `execute(request:)`.
    private static func rawRequest(_ url: URL) -> HTTPClient.Request {
        do { return try HTTPClient.Request(url: url.absoluteString, headers: rawHeaders) } catch { fatalError("\(error)") }
    }

    /// `requests` GETs, `inFlight` at a time (a sliding window); returns
    /// wall and CPU seconds.
    func run(_ scenario: Scenario, requests: Int? = nil) -> (wall: Double, cpu: Double) {
        let total = requests ?? scenario.requests
        let window = Window(total: total, width: min(scenario.inFlight, total)) { done in get(scenario.url, size: scenario.bodySize, done: done) }
        let cpu = cpuSeconds(), start = DispatchTime.now().uptimeNanoseconds
        window.run()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpuSeconds() - cpu)
    }

    /// Resident bytes per request while `count` requests are in flight: the
    /// server answers each after 20 ms, so with a client's few connections
    /// per host nearly all of them still wait 0.1 s after the last was made.
    func bytesPerInFlightRequest(count: Int = 2_000) -> Double {
        let done = Countdown(count)
        let before = ResidentMemory.bytes()
        for _ in 0..<count { get(heldURL, size: small.count) { done.arrive() } }
        usleep(100_000)
        let during = ResidentMemory.bytes()
        done.wait()
        return Double(during - before) / Double(count)
    }
}

/// Keeps `width` operations in flight until `total` were started, then waits for the last.
final class Window: Sendable {
    let total: Int, width: Int
    let start: @Sendable (@escaping @Sendable () -> Void) -> Void
    let started: Atomic<Int>
    let finished: Countdown

    init(total: Int, width: Int, start: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.total = total
        self.width = width
        self.start = start
        started = Atomic(0)
        finished = Countdown(total)
    }

    func run() {
        for _ in 0..<width { next() }
        finished.wait()
    }

    private func next() {
        guard started.add(1, ordering: .relaxed).oldValue < total else { return }
        start { [self] in
            next()
            finished.arrive()
        }
    }
}

/// User and system CPU time of the whole process so far, in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "write-bodies":
    // The bodies for an outside server: <directory>/json and <directory>/big.
    let directory = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : ".")
    try small.write(to: directory.appendingPathComponent("json"))
    try bigBody.write(to: directory.appendingPathComponent("big"))
    exit(0)
case "memory":
    // One client's bytes per in-flight request, in this fresh process.
    guard arguments.count == 2, let client = Client.allCases.first(where: { "\($0)" == arguments[1] }) else { exit(2) }
    _ = client.run(.window, requests: 64)   // connections, code, the first allocations
    print(client.bytesPerInFlightRequest())
    exit(0)
case "cores":
    let numbers = arguments.dropFirst().compactMap(Int.init)
    print(try EveryCore.table(rounds: numbers.first ?? 5, requests: numbers.dropFirst().first ?? 8, megabytes: numbers.dropFirst(2).first ?? 2)
        .joined(separator: "\n"))
    exit(0)
case "once":
    // One client, one scenario, N requests, nothing else: for callgrind.
    guard arguments.count == 4, let client = Client.allCases.first(where: { "\($0)" == arguments[1] }),
          let scenario = Scenario.allCases.first(where: { "\($0)" == arguments[2] }), let count = Int(arguments[3])
    else {
        print("usage: Peers once <\(Client.allCases.map { "\($0)" }.joined(separator: "|"))> <\(Scenario.allCases.map { "\($0)" }.joined(separator: "|"))> <requests>")
        exit(2)
    }
    // `DQ_BENCH_PRELUDE=allInFlight`: that scenario first, unmeasured; then
    // this one's CPU per request is printed (does a process's history change it?).
    if let prelude = ProcessInfo.processInfo.environment["DQ_BENCH_PRELUDE"].flatMap({ name in Scenario.allCases.first { "\($0)" == name } }) {
        _ = client.run(prelude)
        let measured = client.run(scenario, requests: count)
        print(String(format: "%.1f µs CPU a request after %@", measured.cpu * 1e6 / Double(count), prelude.rawValue))
    } else {
        _ = client.run(scenario, requests: count)
    }
    exit(0)
default:
    break
}

let rounds = arguments.first.flatMap(Int.init) ?? 5
// `DQ_BENCH_CLIENTS=rawAHC,oursAHC`: those clients only (their raw peer
// included, for the ratios), and no every-core table.
let chosen = ProcessInfo.processInfo.environment["DQ_BENCH_CLIENTS"].map { $0.split(separator: ",").map(String.init) }
let clients = Client.allCases.filter { client in
    chosen.map { names in names.contains("\(client)") || Client.allCases.contains { names.contains("\($0)") && $0.raw == client } } ?? true
}
print("Peers: \(rounds) interleaved rounds against \(ProcessInfo.processInfo.environment["DQ_BENCH_BASE"] ?? "LoopbackServer (in process)"), \(ProcessInfo.processInfo.activeProcessorCount) cores")
var table: [String] = [
    "| scenario | client | wall µs/request | CPU µs/request | wall ÷ raw | CPU ÷ raw | CPU ÷ raw, rounds |",
    "|:--|:--|--:|--:|--:|--:|--:|",
]
// `DQ_BENCH_SCENARIOS=big`: those scenarios only (by case name), e.g. to see
// whether the rows before one change it.
let scenarios = ProcessInfo.processInfo.environment["DQ_BENCH_SCENARIOS"].map { names in
    Scenario.allCases.filter { names.split(separator: ",").contains(Substring("\($0)")) }
} ?? Scenario.allCases
for scenario in scenarios {
    for client in clients { _ = client.run(scenario, requests: scenario.requests / 10) }   // warm up
    var samples: [Client: [(wall: Double, cpu: Double)]] = [:]
    for _ in 0..<rounds {
        for client in clients { samples[client, default: []].append(client.run(scenario)) }
    }
    func perRequest(_ client: Client) -> (wall: Double, cpu: Double) {
        let runs = samples[client, default: []]
        return (median(runs.map(\.wall)) * 1e6 / Double(scenario.requests), median(runs.map(\.cpu)) * 1e6 / Double(scenario.requests))
    }
    for client in clients {
        let mine = perRequest(client)
        let floor = perRequest(client.raw)
        // Each round's own ratio (the clients ran back to back in it): their
        // range says how far one run's medians can be trusted on this machine.
        let paired = zip(samples[client, default: []], samples[client.raw, default: []]).map { $0.cpu / $1.cpu }
        table.append(String(format: "| %@ | %@ | %.1f | %.1f | %.2f× | %.2f× | %.2f–%.2f× |", scenario.rawValue, client.rawValue,
                            mine.wall, mine.cpu, mine.wall / floor.wall, mine.cpu / floor.cpu,
                            paired.min() ?? .nan, paired.max() ?? .nan))
    }
}
// Memory in a fresh process per client (in this one, the heap left by the
// scenarios above would absorb the requests' memory unseen).
func bytesInFreshProcess(_ client: Client) -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["memory", "\(client)"]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { fatalError("cannot run \(process.executableURL!.path): \(error)") }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
}
var bytes: [Client: [Double]] = [:]
for _ in 0..<3 {
    for client in clients { bytes[client, default: []].append(bytesInFreshProcess(client)) }
}
for client in clients {
    table.append(String(format: "| resident bytes per in-flight request (2,000 waiting) | %@ | %.0f B | | %.2f× | | |", client.rawValue,
                        median(bytes[client, default: []]), median(bytes[client, default: []]) / median(bytes[client.raw, default: []])))
}
print(table.joined(separator: "\n"))
if chosen == nil { print(try EveryCore.table(rounds: rounds, requests: 8, megabytes: 2).joined(separator: "\n")) }
for client in [rawClient, rawAsyncClient, rawDelegateClient] { try client.syncShutdown() }
