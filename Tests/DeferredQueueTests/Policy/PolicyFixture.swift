import DeferredQueue
import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The routes of the loopback `Fixture`, answered by a `MockTransport`: for
/// the policy suites here (validation, …), which judge the session's rules
/// and not a transport, so they run once, without a socket. The socket
/// suites under `HTTP/` run on every transport.
struct PolicyFixture {
    let transport = MockTransport { request in PolicyFixture.reply(to: request) }
    /// A session on ``transport``.
    let session: Session

    init() {
        session = Session(transport: transport)
    }

    /// A URL of this fixture (no server behind it: the transport answers).
    func url(_ path: String) -> URL {
        URL(string: "http://policy.invalid" + path)!
    }

    static func reply(to request: URLRequest) -> MockReply {
        let path = request.url?.path ?? "/"
        switch path {
        case "/json": return .json(#"{"title":"hello","count":3,"tags":["a","b"]}"#)
        case "/html": return .text("<p>hi</p>", headers: ["Content-Type": "text/html; charset=utf-8"])
        default:
            if path.hasPrefix("/status/"), let code = Int(path.dropFirst(8)) {
                return .text("status \(code)", status: code)
            }
            return .text("no route for \(path)", status: 404)
        }
    }
}
