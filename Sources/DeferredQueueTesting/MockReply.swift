import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a ``MockTransport`` answers one attempt with: steps played in order
/// on the transport's callback queue.
///
/// ```swift
/// let transport = MockTransport { request in
///     request.url?.path == "/old" ? .redirect(to: "/new") : .json(#"{"ok":true}"#)
/// }
/// ```
public struct MockReply: Sendable {
    /// One step of a reply.
    public enum Step: Sendable, Equatable {
        /// The response head.
        case head(status: Int, headers: [String: String])
        /// A chunk of the body, as a transport hands it over (decoded).
        case chunk(Data)
        /// Nothing moves for this many seconds. A wait as long as the
        /// attempt's idle timeout fails it with `URLError.timedOut`.
        case wait(Double)
        /// The attempt fails with this error, after whatever came before.
        case fail(URLError)
    }

    /// The steps, in order. Ending without a ``Step/fail(_:)`` completes the
    /// attempt; ending (or a chunk arriving) before any head fails it with
    /// `URLError.badServerResponse`.
    public var steps: [Step]

    /// A reply made of `steps`.
    public init(steps: [Step]) {
        self.steps = steps
    }

    /// A head and a body in one chunk.
    public static func status(_ code: Int, headers: [String: String] = [:], body: Data = Data()) -> MockReply {
        MockReply(steps: [.head(status: code, headers: headers)] + (body.isEmpty ? [] : [.chunk(body)]))
    }

    /// A `text/plain` body in UTF-8.
    public static func text(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> MockReply {
        .status(
            status, headers: headers.merging(["Content-Type": "text/plain; charset=utf-8"]) { own, _ in own },
            body: Data(text.utf8)
        )
    }

    /// An `application/json` body.
    public static func json(_ json: String, status: Int = 200, headers: [String: String] = [:]) -> MockReply {
        .status(
            status, headers: headers.merging(["Content-Type": "application/json"]) { own, _ in own },
            body: Data(json.utf8)
        )
    }

    /// A redirect to `location` (absolute, or relative to the request's URL).
    public static func redirect(to location: String, status: Int = 302) -> MockReply {
        .status(status, headers: ["Location": location])
    }

    /// A head, then `chunks` with `interval` seconds before each.
    public static func chunks(
        _ chunks: [Data], interval: Double = 0, status: Int = 200, headers: [String: String] = [:]
    ) -> MockReply {
        let body = chunks.flatMap { chunk -> [Step] in interval > 0 ? [.wait(interval), .chunk(chunk)] : [.chunk(chunk)] }
        return MockReply(steps: [.head(status: status, headers: headers)] + body)
    }

    /// A failure before any response, after `seconds`.
    public static func failure(_ code: URLError.Code, after seconds: Double = 0) -> MockReply {
        MockReply(steps: (seconds > 0 ? [.wait(seconds)] : []) + [.fail(URLError(code))])
    }

    /// No answer at all: the attempt ends when it is cancelled or its idle
    /// timeout passes.
    public static var silence: MockReply { MockReply(steps: [.wait(.infinity)]) }
}
