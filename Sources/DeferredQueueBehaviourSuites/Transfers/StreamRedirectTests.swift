import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing

/// A stream's request goes on from a redirect it follows and from a
/// challenge it answers, as Alamofire's does inside URLSession: such a head
/// is not the response, so its body is not the stream and `validate()`
/// does not judge it. A redirect or challenge the request stops at is the
/// final head, judged and streamed like any other.
@Suite("Streams: a redirect followed or a challenge answered is neither streamed nor judged")
struct StreamRedirectTests {
    /// `/start` answers `302` to `/final`, or `401` with a `Basic` challenge
    /// unless the credential came; each with a body of its own.
    private static func server(hits: Counter) throws -> LoopbackServer {
        try LoopbackServer { request in
            hits.increment()
            switch request.path {
            case "/start":
                return .response(status: 302, headers: [("Location", "/final")], body: Data("moved".utf8))
            case "/private" where request.header("Authorization") != HTTPHeader.authorization(username: "u", password: "p").value:
                return .response(status: 401, headers: [("WWW-Authenticate", #"Basic realm="x""#)], body: Data("nope!".utf8))
            default:
                return .text("the final body")
            }
        }
    }

    enum Continuation: String, CaseIterable, Sendable {
        case redirectFollowed
        case challengeAnswered
    }

    @Test(arguments: Continuation.allCases)
    func aValidatedStreamGoesOnToTheFinalResponseAndStreamsOnlyItsBody(_ continuation: Continuation) async throws {
        let hits = Counter()
        let server = try Self.server(hits: hits)
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let log = StreamEventLog<Data, Never>()
        let request = switch continuation {
        case .redirectFollowed: session.streamRequest(server.url("/start"))
        case .challengeAnswered: session.streamRequest(server.url("/private")).authenticate(username: "u", password: "p")
        }
        request.validate().responseStream(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait(seconds: 120))
        let completion = try #require(log.completions.events.first)
        #expect(completion.error == nil, "\(String(describing: completion.error))")
        #expect(completion.response?.statusCode == 200)
        #expect(String(decoding: log.body, as: UTF8.self) == "the final body")
        #expect(hits.count == 2)
    }

    /// Declined up front (`doNotFollow`), or by a `modify` closure, which
    /// is asked once the redirect's attempt ends: either way the `302` is
    /// the response, and `validate()` refuses it.
    @Test(arguments: [false, true])
    func aRedirectNotFollowedIsTheFinalHeadAndIsJudged(declinedByAClosure: Bool) async throws {
        let hits = Counter()
        let server = try Self.server(hits: hits)
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let log = StreamEventLog<Data, Never>()
        let redirector = declinedByAClosure ? Redirector(behavior: .modify { _, _ in nil }) : .doNotFollow
        session.streamRequest(server.url("/start")).redirect(using: redirector).validate()
            .responseStream(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait(seconds: 120))
        let completion = try #require(log.completions.events.first)
        #expect(completion.error?.responseCode == 302, "\(String(describing: completion.error))")
        #expect(log.values.count == 0, "a refused head's body is dropped")
        #expect(hits.count == 1)
    }

    /// Not followed and not validated, the `302` is the response, body and all.
    @Test func aRedirectNotFollowedStreamsItsBody() async throws {
        let hits = Counter()
        let server = try Self.server(hits: hits)
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let log = StreamEventLog<Data, Never>()
        session.streamRequest(server.url("/start")).redirect(using: .doNotFollow).responseStream(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait(seconds: 120))
        let completion = try #require(log.completions.events.first)
        #expect(completion.error == nil)
        #expect(completion.response?.statusCode == 302)
        #expect(String(decoding: log.body, as: UTF8.self) == "moved")
    }
}
