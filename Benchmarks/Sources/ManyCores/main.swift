// Does one Session use every core? N requests in flight, each decoding a
// large JSON array with `responseDecodable(queue:)` into a queue of its own,
// against the floor: the same N decodes of the same bytes started at once on
// the global pool, with no HTTP at all.
//
//     swift run --package-path Benchmarks -c release ManyCores [rounds] [requests] [megabytes]
//
// Clients, interleaved round by round: the floor; DeferredQueue over
// URLSessionTransport and over AsyncHTTPClientTransport (default: each
// request's handlers on their own queue, in parallel); and over
// AsyncHTTPClientTransport with a serial `serializationQueue` (Alamofire's
// model, one request's serialization at a time). For each: the median wall
// time, its ratio to the floor's, and the cores used (CPU time ÷ wall time,
// process-wide, so the in-process server's share is included).
import BenchmarkSupport
import DeferredQueue
import DeferredQueueAsyncHTTPClient
import Dispatch
import Foundation
import LoopbackServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = CommandLine.arguments.dropFirst().compactMap(Int.init)
let rounds = arguments.first ?? 3
let requests = arguments.dropFirst().first ?? 8
let megabytes = arguments.dropFirst(2).first ?? 2

struct Item: Codable, Sendable {
    let id: Int
    let name: String
    let tags: [String]
    let score: Double
}
typealias Items = [Item]
let body: Data = {
    let count = megabytes * 1_000_000 / 75
    let items = (0..<count).map { Item(id: $0, name: "item \($0)", tags: ["swift", "bench"], score: Double($0) / 3) }
    return (try? JSONEncoder().encode(items)) ?? Data()
}()
let expectedCount = (try? JSONDecoder().decode(Items.self, from: body).count) ?? -1
let server = try LoopbackServer(routes: ["/big": { _ in .json(data: body) }])
let url = server.url("/big")

enum Client: String, CaseIterable {
    case floor = "floor: N decodes at once, global pool"
    case urlSession = "responseDecodable · URLSession"
    case ahc = "responseDecodable · AHC"
    case ahcSerial = "responseDecodable · AHC, serial serializationQueue"

    static let urlSessionSession = Session()
    static let ahcSession = Session(transport: AsyncHTTPClientTransport())
    static let serialSession = Session(
        transport: AsyncHTTPClientTransport(), serializationQueue: DispatchQueue(label: "ManyCores.serialization")
    )

    /// One request (or decode); `done` when its items are decoded.
    func run(_ index: Int, done: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "ManyCores.handler.\(index)")
        let check: @Sendable (Int) -> Void = { count in
            precondition(count == expectedCount, "\(rawValue): decoded \(count) items, expected \(expectedCount)")
            done()
        }
        let session: Session
        switch self {
        case .floor:
            DispatchQueue.global().async {
                let items = (try? JSONDecoder().decode(Items.self, from: body)) ?? []
                queue.async { check(items.count) }
            }
            return
        case .urlSession: session = Self.urlSessionSession
        case .ahc: session = Self.ahcSession
        case .ahcSerial: session = Self.serialSession
        }
        session.request(url).responseDecodable(of: Items.self, queue: queue) { response in
            check(response.value?.count ?? -1)
        }
    }

    /// Wall seconds and CPU seconds for `requests` at once.
    func measure() -> (wall: Double, cpu: Double) {
        let done = Countdown(requests)
        let cpuBefore = cpuSeconds(), start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<requests { run(index) { done.arrive() } }
        done.wait()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (wall, cpuSeconds() - cpuBefore)
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

print("\(requests) requests at once, each decoding \(body.count / 1_000) kB into \(expectedCount) items; \(ProcessInfo.processInfo.activeProcessorCount) cores")
for client in Client.allCases { _ = client.measure() }   // warm up: connections, code, heap
var samples: [Client: [(wall: Double, cpu: Double)]] = [:]
for _ in 0..<rounds {
    for client in Client.allCases { samples[client, default: []].append(client.measure()) }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let floorWall = median(samples[.floor, default: []].map(\.wall))
let floorCores = median(samples[.floor, default: []].map { $0.cpu / $0.wall })
print("median of \(rounds) interleaved rounds:")
for client in Client.allCases {
    let runs = samples[client, default: []]
    let wall = median(runs.map(\.wall)), cores = median(runs.map { $0.cpu / $0.wall })
    print("  \(client.rawValue.padding(toLength: 52, withPad: " ", startingAt: 0)) "
          + String(format: "%6.3f s  %5.2f× floor's wall  %4.2f cores (%3.0f%% of floor's)", wall, wall / floorWall, cores, 100 * cores / floorCores))
}
