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
    /// unless the credential came; each with a body of its own (of
    /// `largeBody` bytes under `/large`).
    private static func server(hits: Counter) throws -> LoopbackServer {
        try LoopbackServer { request in
            hits.increment()
            let large = request.path.hasPrefix("/large")
            func body(_ text: String) -> Data { large ? Data(repeating: 0x2E, count: largeBody) : Data(text.utf8) }
            switch request.path {
            case "/start", "/large/start":
                return .response(status: 302, headers: [("Location", "/final")], body: body("moved"))
            case "/private" where request.header("Authorization") != HTTPHeader.authorization(username: "u", password: "p").value,
                 "/large/private" where request.header("Authorization") != HTTPHeader.authorization(username: "u", password: "p").value:
                return .response(status: 401, headers: [("WWW-Authenticate", #"Basic realm="x""#)], body: body("nope!"))
            default:
                return .text("the final body")
            }
        }
    }

    /// What one stream saw: its completion, its chunks, and how many requests reached the server.
    private struct Outcome {
        let completion: DataStreamRequest.Completion
        let log: StreamEventLog<Data, Never>
        let hits: Int
        var body: String { String(decoding: log.body, as: UTF8.self) }
    }

    /// Runs the stream `start` makes against the fixture's server, to its end.
    private static func run(_ start: (LoopbackServer) -> DataStreamRequest) async throws -> Outcome {
        let hits = Counter()
        let server = try Self.server(hits: hits)
        defer { server.shutdown() }
        let log = StreamEventLog<Data, Never>()
        start(server).responseStream(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait(seconds: 120))
        return Outcome(completion: try #require(log.completions.events.first), log: log, hits: hits.count)
    }

    enum Continuation: String, CaseIterable, Sendable {
        case redirectFollowed
        case challengeAnswered

        /// The stream, its paths under `prefix`.
        func start(_ server: LoopbackServer, under prefix: String) -> DataStreamRequest {
            let session = TestTransport.makeSession()
            return switch self {
            case .redirectFollowed: session.streamRequest(server.url(prefix + "/start"))
            case .challengeAnswered: session.streamRequest(server.url(prefix + "/private")).authenticate(username: "u", password: "p")
            }
        }
    }

    @Test(arguments: Continuation.allCases)
    func aValidatedStreamGoesOnToTheFinalResponseAndStreamsOnlyItsBody(_ continuation: Continuation) async throws {
        let outcome = try await Self.run { continuation.start($0, under: "").validate() }
        #expect(outcome.completion.error == nil, "\(String(describing: outcome.completion.error))")
        #expect(outcome.completion.response?.statusCode == 200)
        #expect(outcome.body == "the final body")
        #expect(outcome.hits == 2)
    }

    private static let largeBody = 64 * 1024

    /// The body of a head the stream goes on from is not handed over, but
    /// it counts against the body limit: one that never ends would hold the
    /// stream open for good.
    @Test(arguments: Continuation.allCases)
    func aBodyTheStreamGoesOnFromStillCountsAgainstTheLimit(_ continuation: Continuation) async throws {
        let limit = 1024
        let outcome = try await Self.run { continuation.start($0, under: "/large").maximumResponseBodySize(limit) }
        guard case .responseTooLarge(let reported)? = outcome.completion.error else {
            Issue.record("expected responseTooLarge, got \(String(describing: outcome.completion.error))")
            return
        }
        #expect(reported == limit)
        #expect(outcome.log.values.count == 0, "the body of a head the stream goes on from is not the stream")
        #expect(outcome.hits == 1, "the request did not go on past the limit")
    }

    /// How a redirect is declined.
    enum Declined: String, CaseIterable, Sendable {
        /// `doNotFollow` on the request, known as the head arrives.
        case byTheRequest
        /// `doNotFollow` as the session's redirect handler.
        case byTheSession
        /// A `modify` closure, asked once the redirect's attempt ends.
        case byAClosure

        func start(_ url: URL, validated: Bool) -> DataStreamRequest {
            let session = TestTransport.makeSession(redirectHandler: self == .byTheSession ? .doNotFollow : .follow)
            let request = switch self {
            case .byTheRequest: session.streamRequest(url).redirect(using: .doNotFollow)
            case .byTheSession: session.streamRequest(url)
            case .byAClosure: session.streamRequest(url).redirect(using: Redirector(behavior: .modify { _, _ in nil }))
            }
            return validated ? request.validate() : request
        }
    }

    /// However it is declined, the `302` is the response, and `validate()` refuses it.
    @Test(arguments: Declined.allCases)
    func aRedirectNotFollowedIsTheFinalHeadAndIsJudged(_ declined: Declined) async throws {
        let outcome = try await Self.run { declined.start($0.url("/start"), validated: true) }
        #expect(outcome.completion.error?.responseCode == 302, "\(String(describing: outcome.completion.error))")
        #expect(outcome.log.values.count == 0, "a refused head's body is dropped")
        #expect(outcome.hits == 1)
    }

    /// Not validated, the `302` is the response, without error; its body is
    /// streamed when the decline was known as the head arrived, and not
    /// when a closure declined it at the attempt's end (it had been dropped).
    @Test(arguments: Declined.allCases)
    func aRedirectNotFollowedEndsTheStreamWithoutError(_ declined: Declined) async throws {
        let outcome = try await Self.run { declined.start($0.url("/start"), validated: false) }
        #expect(outcome.completion.error == nil, "\(String(describing: outcome.completion.error))")
        #expect(outcome.completion.response?.statusCode == 302)
        #expect(outcome.body == (declined == .byAClosure ? "" : "moved"))
        #expect(outcome.hits == 1)
    }

    /// A challenge answered with a wrong credential: the second `401` is
    /// not answered again, so it is the final head, streamed, or refused by
    /// `validate()`.
    @Test(arguments: [false, true])
    func aChallengeTheCredentialDidNotSatisfyIsTheFinalHead(validated: Bool) async throws {
        let outcome = try await Self.run { server in
            let request = TestTransport.makeSession().streamRequest(server.url("/private")).authenticate(username: "u", password: "wrong")
            return validated ? request.validate() : request
        }
        #expect(outcome.completion.response?.statusCode == 401)
        if validated {
            #expect(outcome.completion.error?.responseCode == 401, "\(String(describing: outcome.completion.error))")
            #expect(outcome.log.values.count == 0)
        } else {
            #expect(outcome.completion.error == nil, "\(String(describing: outcome.completion.error))")
            #expect(outcome.body == "nope!", "the second 401's body alone")
        }
        #expect(outcome.hits == 2)
    }
}
