// Built by alamofire-peer.sh in a scratch package beside an Alamofire
// checkout (the project's packages cannot resolve Alamofire): raw
// URLSession, DeferredQueue on URLSession and Alamofire 5.12, none with a
// URLCache, each `responseData(queue:)` (raw: `dataTask(with:completionHandler:)`)
// from the same server, the Peers scenarios interleaved round by round.
// Prints medians of the per-round ratios.
import Alamofire
import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

let base = ProcessInfo.processInfo.environment["DQ_BENCH_BASE"] ?? "http://127.0.0.1:8088"

func withoutCache(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
    configuration.urlCache = nil
    return configuration
}

let rawSession = URLSession(configuration: withoutCache(.default))
let alamofireSession = Alamofire.Session(configuration: withoutCache(URLSessionConfiguration.af.default))
// The default configuration has no URLCache already.
let deferredQueue = DeferredQueue.Session()
let handlerQueue = DispatchQueue(label: "AlamofirePeer.handlers")

enum Client: String, CaseIterable {
    case raw = "raw URLSession"
    case ours = "DeferredQueue · URLSession"
    case alamofire = "Alamofire 5.12"

    func get(_ url: URL, size: Int, done: @escaping @Sendable () -> Void) {
        switch self {
        case .raw:
            rawSession.dataTask(with: url) { data, _, error in
                guard data?.count == size else { fatalError("raw URLSession: \(String(describing: error))") }
                done()
            }.resume()
        case .ours:
            deferredQueue.request(url).responseData(queue: handlerQueue) { response in
                guard response.value?.count == size else { fatalError("DeferredQueue: \(response.result)") }
                done()
            }
        case .alamofire:
            alamofireSession.request(url).responseData(queue: handlerQueue) { response in
                guard response.value?.count == size else { fatalError("Alamofire: \(response.result)") }
                done()
            }
        }
    }
}

struct Scenario {
    let name: String, path: String, size: Int, requests: Int, inFlight: Int
    var url: URL { URL(string: base + path)! }
}

let scenarios = [
    Scenario(name: "2,000 sequential GETs of 2 KiB", path: "/json", size: 2_048, requests: 2_000, inFlight: 1),
    Scenario(name: "2,000 GETs all in flight", path: "/json", size: 2_048, requests: 2_000, inFlight: 2_000),
    Scenario(name: "2,000 GETs, 64 in flight", path: "/json", size: 2_048, requests: 2_000, inFlight: 64),
    Scenario(name: "200 sequential GETs of 1 MiB", path: "/big", size: 1 << 20, requests: 200, inFlight: 1),
]

/// Keeps `inFlight` requests going until `requests` were made; returns when the last ended.
final class Window: Sendable {
    let client: Client, scenario: Scenario, requests: Int
    let started = Atomic<Int>(0), left: Atomic<Int>
    let finished = DispatchSemaphore(value: 0)

    init(_ client: Client, _ scenario: Scenario, requests: Int) {
        (self.client, self.scenario, self.requests) = (client, scenario, requests)
        left = Atomic(requests)
    }

    func run(inFlight: Int) {
        for _ in 0..<min(inFlight, requests) { next() }
        finished.wait()
    }

    private func next() {
        guard started.add(1, ordering: .relaxed).oldValue < requests else { return }
        client.get(scenario.url, size: scenario.size) { [self] in
            next()
            if left.subtract(1, ordering: .relaxed).newValue == 0 { finished.signal() }
        }
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 5
// Connections, code and first allocations, for every client.
for client in Client.allCases {
    for scenario in scenarios { Window(client, scenario, requests: 64).run(inFlight: scenario.inFlight) }
}
var wall: [String: [Client: [Double]]] = [:], cpu: [String: [Client: [Double]]] = [:]
for _ in 0..<rounds {
    for scenario in scenarios {
        for client in Client.allCases {
            let cpuBefore = cpuSeconds(), start = DispatchTime.now().uptimeNanoseconds
            Window(client, scenario, requests: scenario.requests).run(inFlight: scenario.inFlight)
            let perRequest = 1e6 / Double(scenario.requests)
            wall[scenario.name, default: [:]][client, default: []]
                .append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 * perRequest)
            cpu[scenario.name, default: [:]][client, default: []].append((cpuSeconds() - cpuBefore) * perRequest)
        }
    }
}
print("AlamofirePeer: \(rounds) interleaved rounds against \(base); medians of per-round ratios")
print("| scenario | client | wall µs/request | CPU µs/request | CPU ÷ raw | CPU ÷ Alamofire | wall ÷ Alamofire |")
print("|:--|:--|--:|--:|--:|--:|--:|")
for scenario in scenarios {
    let wallOf = wall[scenario.name]!, cpuOf = cpu[scenario.name]!
    func ratio(_ a: [Double], _ b: [Double]) -> Double { median(zip(a, b).map { $0 / $1 }) }
    for client in Client.allCases {
        let (w, c) = (wallOf[client]!, cpuOf[client]!)
        print(String(
            format: "| %@ | %@ | %.1f | %.1f | %.2f× | %.2f× | %.2f× |", scenario.name, client.rawValue, median(w), median(c),
            ratio(c, cpuOf[.raw]!), ratio(c, cpuOf[.alamofire]!), ratio(w, wallOf[.alamofire]!)
        ))
    }
}
exit(0)
