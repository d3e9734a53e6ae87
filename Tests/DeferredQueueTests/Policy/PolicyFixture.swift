import DeferredQueue
import DeferredQueueTesting
import TestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The routes of the loopback `Fixture`, answered by a `MockTransport`: for
/// the policy suites here — validation, redirects, retries (`RetryPolicy`,
/// retriers), serializers (built-in and custom), Basic authentication,
/// `AuthenticationInterceptor` and interceptors — which judge the session's
/// rules and not a transport, so they run once, without a socket. The socket
/// suites under `HTTP/` run on every transport.
///
/// What a server would have seen is the transport's record:
/// ``requests`` holds every attempt as it went on the wire, in order
/// (redirect hops, retries and challenge answers included), for every
/// session of the fixture (they share its transport).
final class PolicyFixture: Sendable {
    /// The origin of ``url(_:)``.
    static let origin = "http://policy.invalid"
    /// Another origin, for cross-origin redirects (``otherURL(_:)``).
    static let otherOrigin = "http://other.invalid"
    /// The `Authorization` value `/basic` accepts.
    static let basicCredential = HTTPHeader.authorization(username: "user", password: "secret").value
    /// An XML property list with the same title and count as `/json`.
    static let plist = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict><key>title</key><string>hello</string><key>count</key><integer>3</integer></dict></plist>
        """#

    let transport: MockTransport
    /// A plain session on ``transport``.
    let session: Session

    /// A fixture answering with `routes` first (`nil`: not its route), then
    /// with the shared routes below. Whatever answers, a `HEAD` gets the head
    /// alone, as from a server.
    init(routes: @escaping @Sendable (URLRequest) -> MockReply? = { _ in nil }) {
        let flaky = Counter()
        transport = MockTransport { request in
            let reply = routes(request) ?? PolicyFixture.reply(to: request, flaky: flaky)
            return request.httpMethod == "HEAD" ? reply.headOnly : reply
        }
        session = Session(transport: transport)
    }

    /// Another session on this fixture's transport, as `TestTransport.makeSession` makes on a real one.
    func makeSession(
        interceptor: (any RequestInterceptor)? = nil,
        redirectHandler: Redirector = .follow,
        eventMonitors: [any EventMonitor] = [],
        retryPolicy: RetryPolicy? = nil
    ) -> Session {
        Session(
            transport: transport, interceptor: interceptor, redirectHandler: redirectHandler,
            eventMonitors: eventMonitors, retryPolicy: retryPolicy
        )
    }

    /// A URL of this fixture (no server behind it: the transport answers).
    func url(_ path: String) -> URL {
        URL(string: Self.origin + path)!
    }

    /// A URL of ``otherOrigin``, answered by the same routes.
    func otherURL(_ path: String) -> URL {
        URL(string: Self.otherOrigin + path)!
    }

    /// Every attempt's request so far, as sent, in order.
    var requests: [URLRequest] { transport.requests }

    /// The attempts sent to `path` (on `host`, when given).
    func requests(to path: String, host: String? = nil) -> [URLRequest] {
        requests.filter { $0.url?.path == path && (host == nil || $0.url?.host == host) }
    }

    /// The shared routes:
    /// - `/json`, `/text`, `/html`, `/plist`, `/xssi`: bodies of those types;
    /// - `/empty` (200), `/no-content` (204), `/reset-content` (205),
    ///   `/accepted` (202, `X-Queue-Position: 7`): no body;
    /// - `/status/<code>`: that status, with the body `status <code>`;
    /// - `/id?id=<text>`: `<text>`;
    /// - `/redirect?status=<code>&to=<location>` (302, `/target`), `/redirect-loop`;
    ///   `/target`: the text `target`;
    /// - `/flaky`: 503 twice (per fixture), then JSON; `/post-503`: always 503;
    /// - `/basic`: 401 with a `Basic` challenge unless it carries ``basicCredential``;
    /// - `/never`: no answer; `/refused`: `URLError.cannotConnectToHost`, as a
    ///   transport reports a refused connection.
    private static func reply(to request: URLRequest, flaky: Counter) -> MockReply {
        let path = request.url?.path ?? "/"
        switch path {
        case "/json": return .json(#"{"title":"hello","count":3,"tags":["a","b"]}"#)
        case "/text": return .text("héllo wörld")
        case "/html": return .text("<p>hi</p>", headers: ["Content-Type": "text/html; charset=utf-8"])
        case "/plist": return .status(200, headers: ["Content-Type": "application/x-plist"], body: Data(plist.utf8))
        case "/xssi": return .json(")]}',\n" + #"{"title":"hello","count":3}"#)
        case "/empty": return .status(200)
        case "/no-content": return .status(204)
        case "/reset-content": return .status(205)
        case "/accepted": return .status(202, headers: ["X-Queue-Position": "7"])
        case "/id": return .text(query("id", of: request) ?? "")
        case "/redirect":
            return .redirect(to: query("to", of: request) ?? "/target", status: query("status", of: request).flatMap { Int($0) } ?? 302)
        case "/redirect-loop": return .redirect(to: "/redirect-loop")
        case "/target": return .text("target")
        case "/flaky": return flaky.increment() <= 2 ? .text("try again", status: 503) : .json(#"{"ok":true}"#)
        case "/post-503": return .text("unavailable", status: 503)
        case "/basic":
            guard request.value(forHTTPHeaderField: "Authorization") == basicCredential else {
                return .text("denied", status: 401, headers: ["WWW-Authenticate": #"Basic realm="tests""#])
            }
            return .text("welcome")
        case "/never": return .silence
        case "/refused": return .failure(.cannotConnectToHost)
        default:
            if path.hasPrefix("/status/"), let code = Int(path.dropFirst(8)) {
                return .text("status \(code)", status: code)
            }
            return .text("no route for \(path)", status: 404)
        }
    }

    /// The value of query item `name` of `request`, percent-decoded.
    static func query(_ name: String, of request: URLRequest) -> String? {
        request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }?
            .queryItems?.first { $0.name == name }?.value
    }
}

extension MockReply {
    /// This reply without its body, as a server answers `HEAD`.
    var headOnly: MockReply {
        MockReply(steps: steps.filter { if case .chunk = $0 { false } else { true } })
    }
}
