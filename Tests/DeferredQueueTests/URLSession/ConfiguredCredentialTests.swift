import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Synchronization
import Testing
@testable import DeferredQueue

/// URLSession adds a configuration's `httpAdditionalHeaders` to every task,
/// a redirect hop to another origin's too. Its origin credentials
/// (`Authorization`, `Cookie`) are the session's to add instead: to every
/// attempt at the request's origin, to none at another, as a request's own
/// are. `Proxy-Authorization` is the proxy's, which every hop goes through.
@Suite("URLSession: the configuration's credential fields stay at the request's origin")
struct ConfiguredCredentialTests {
    static let credentials = ["Authorization": "Bearer configured", "Cookie": "sid=configured"]

    @Test(arguments: [false, true])
    func aRedirectToAnotherOriginCarriesNoneOfThem(madeByTheCaller: Bool) async throws {
        let other = try LoopbackServer { .echo($0) }
        defer { other.shutdown() }
        let originURL = Mutex<URL?>(nil)
        let returning = try LoopbackServer { _ in
            .redirect(to: originURL.withLock { $0 }?.appendingPathComponent("home").absoluteString ?? "/", status: 307)
        }
        defer { returning.shutdown() }
        let origin = try LoopbackServer { request in
            switch request.path {
            case "/away": .redirect(to: other.url("/echo").absoluteString, status: 307)
            case "/away-and-back": .redirect(to: returning.url("/back").absoluteString, status: 307)
            default: .echo(request)
            }
        }
        originURL.withLock { $0 = origin.url("/") }
        defer { origin.shutdown() }
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = Self.credentials.merging(["X-Plain": "kept", "Proxy-Authorization": "Basic proxy"]) { $1 }
        let session = madeByTheCaller
            ? Session(transport: URLSessionTransport(configuration: configuration))
            : Session(configuration: configuration)
        let home = await response { session.request(origin.url("/home")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        for (name, value) in Self.credentials {
            #expect(home?.value?["headers"][name].string == value, "\(name) at the request's origin")
        }
        #expect(home?.value?["headers"]["X-Plain"].string == "kept")
        let away = await response { session.request(origin.url("/away")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(away?.response?.url?.port == other.port, "followed to the other origin: \(String(describing: away?.result))")
        for name in Self.credentials.keys {
            #expect(away?.value?["headers"][name].string == nil, "\(name) went to another origin")
        }
        #expect(away?.value?["headers"]["X-Plain"].string == "kept", "a field that is no credential still goes")
        #expect(away?.value?["headers"]["Proxy-Authorization"].string == "Basic proxy", "the proxy's, on every hop")
        // Back at the request's origin, after a hop away: the origin's again.
        let back = await response {
            session.request(origin.url("/away-and-back")).responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(back?.value?["headers"]["Authorization"].string == "Bearer configured", "\(String(describing: back?.result))")
    }

    /// An adapter that points the first attempt at another host is the
    /// caller's choice, as before: the configuration's credentials go along.
    @Test func anAdapterThatChangesTheHostKeepsThem() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = Self.credentials
        let session = Session(configuration: configuration)
        let adapter = Adapter { request, _, completion in
            var request = request
            request.url = server.url("/real")
            completion(.success(request))
        }
        let result = await response {
            session.request("http://api.placeholder.invalid/x", interceptor: adapter).responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value?["headers"]["Authorization"].string == "Bearer configured", "\(String(describing: result?.result))")
    }

    /// The request's own field wins over the configuration's, as URLSession's
    /// rule is; the transport's `URLSession` never sees the configured ones.
    @Test func theRequestsOwnFieldWins() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["authorization": "Bearer configured"]
        let session = Session(configuration: configuration)
        let own = await response {
            session.request(server.url("/"), headers: [.authorization(bearerToken: "own")]).responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(own?.value?["headers"]["Authorization"].string == "Bearer own")
        let configured = await response { session.request(server.url("/")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(configured?.value?["headers"]["authorization"].string == "Bearer configured", "as the configuration spells it")
        let transport = try #require(session.transport as? URLSessionTransport)
        #expect(transport.urlSession.configuration.httpAdditionalHeaders?.isEmpty != false)
    }
}
