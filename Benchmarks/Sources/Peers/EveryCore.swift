// Does one Session use every core? N requests in flight, each decoding a
// large JSON array with `responseDecodable(queue:)` into a queue of its own,
// against the floor: the same N decodes of the same bytes started at once on
// the global pool, with no HTTP at all. Clients, interleaved round by round:
// the floor; DeferredQueue over URLSessionTransport and over
// AsyncHTTPClientTransport (each request's handlers on their own queue, in
// parallel: the default); and over AsyncHTTPClientTransport with a serial
// `serializationQueue` (Alamofire's model, one request's serialization at a
// time). For each: the median wall time, its ratio to the floor's, and the
// cores used (CPU time ÷ wall time, process-wide, the in-process server's
// share included).
import BenchmarkSupport
import DeferredQueue
import DeferredQueueAsyncHTTPClient
import Dispatch
import Foundation
import LoopbackServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum EveryCore {
    struct Item: Codable, Sendable {
        let id: Int
        let name: String
        let tags: [String]
        let score: Double
    }
    typealias Items = [Item]

    enum Client: String, CaseIterable {
        case floor = "floor: N decodes at once, global pool"
        case urlSession = "responseDecodable · URLSession"
        case ahc = "responseDecodable · AHC"
        case ahcSerial = "responseDecodable · AHC, serial serializationQueue"
    }

    /// The table's lines: `requests` at once, each decoding `megabytes` of JSON.
    static func table(rounds: Int, requests: Int, megabytes: Int) throws -> [String] {
        let count = megabytes * 1_000_000 / 75
        let items = (0..<count).map { Item(id: $0, name: "item \($0)", tags: ["swift", "bench"], score: Double($0) / 3) }
        let body = try JSONEncoder().encode(items)
        let server = try LoopbackServer(routes: ["/big": { _ in .json(data: body) }])
        let url = server.url("/big")
        let sessions: [Client: Session] = [
            .urlSession: Session(),
            .ahc: Session(transport: AsyncHTTPClientTransport()),
            .ahcSerial: Session(transport: AsyncHTTPClientTransport(), serializationQueue: DispatchQueue(label: "Peers.serialization")),
        ]

        /// Wall and CPU seconds for `requests` at once.
        func measure(_ client: Client) -> (wall: Double, cpu: Double) {
            let done = Countdown(requests)
            let cpuBefore = cpuSeconds(), start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<requests {
                let queue = DispatchQueue(label: "Peers.handler.\(index)")
                let check: @Sendable (Int) -> Void = { decoded in
                    precondition(decoded == count, "\(client.rawValue): decoded \(decoded) items, expected \(count)")
                    done.arrive()
                }
                if let session = sessions[client] {
                    session.request(url).responseDecodable(of: Items.self, queue: queue) { check($0.value?.count ?? -1) }
                } else {
                    DispatchQueue.global().async {
                        let decoded = (try? JSONDecoder().decode(Items.self, from: body))?.count ?? -1
                        queue.async { check(decoded) }
                    }
                }
            }
            done.wait()
            return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpuSeconds() - cpuBefore)
        }

        for client in Client.allCases { _ = measure(client) }   // warm up: connections, code, heap
        var samples: [Client: [(wall: Double, cpu: Double)]] = [:]
        for _ in 0..<rounds {
            for client in Client.allCases { samples[client, default: []].append(measure(client)) }
        }
        let floorWall = median(samples[.floor, default: []].map(\.wall))
        let floorCores = median(samples[.floor, default: []].map { $0.cpu / $0.wall })
        var lines = [
            "",
            "Every core: \(requests) requests at once, each decoding \(body.count / 1_000) kB into \(count) items; "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores; medians of \(rounds) interleaved rounds",
            "",
            "| client | wall s | ÷ floor | cores used | of the floor's |",
            "|:--|--:|--:|--:|--:|",
        ]
        for client in Client.allCases {
            let runs = samples[client, default: []]
            let wall = median(runs.map(\.wall)), cores = median(runs.map { $0.cpu / $0.wall })
            lines.append(String(format: "| %@ | %.3f | %.2f× | %.2f | %.0f%% |", client.rawValue, wall, wall / floorWall, cores, 100 * cores / floorCores))
        }
        return lines
    }
}
