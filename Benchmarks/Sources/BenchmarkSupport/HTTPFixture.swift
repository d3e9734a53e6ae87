import Foundation
import LoopbackServer

/// The HTTP benchmarks' server: `GET /json` answers a 2 KiB JSON document
/// (keep-alive), from a ``LoopbackServer`` on 127.0.0.1.
///
/// With `DQ_BENCH_URL` set (for example to an nginx serving the same
/// 2,048-byte document), ``url`` points there instead, so the clients can be
/// measured without the in-process server's own cost on the same two cores.
public final class HTTPFixture: Sendable {
    /// One item of the payload.
    public struct Item: Codable, Sendable {
        public let id: Int
        public let name: String
        public let tags: [String]
        public let score: Double
    }

    /// The payload's shape, for the decoding peers.
    public struct Payload: Codable, Sendable {
        public let items: [Item]
    }

    public let server: LoopbackServer
    public let url: URL
    /// The body served, exactly 2,048 bytes.
    public let body: Data

    public init() throws {
        let body = Self.makeBody(size: 2_048)
        self.body = body
        server = try LoopbackServer(routes: ["/json": { _ in .json(data: body) }])
        url = ProcessInfo.processInfo.environment["DQ_BENCH_URL"].flatMap(URL.init(string:)) ?? server.url("/json")
    }

    /// A JSON document of items padded to exactly `size` bytes.
    public static func makeBody(size: Int) -> Data {
        var items: [Item] = []
        var encoded = Data()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        while true {
            let next = Item(id: items.count, name: "item \(items.count)", tags: ["swift", "bench"], score: 0.5)
            let candidate = (try? encoder.encode(Payload(items: items + [next]))) ?? Data()
            if candidate.count > size - 16 { break }
            items.append(next)
            encoded = candidate
        }
        // Pad with trailing whitespace (still valid JSON) to the exact size.
        encoded.append(contentsOf: Array(repeating: UInt8(ascii: " "), count: size - encoded.count))
        return encoded
    }
}
