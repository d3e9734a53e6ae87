import AsyncHTTPClient
import DeferredQueueAsyncHTTPClient
import DeferredQueueBehaviourSuites
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NIOPosix
import TestSupport
import Testing
@testable import DeferredQueue

/// The transport contract (HTTPTransport's documentation) as
/// AsyncHTTPClientTransport keeps it: one attempt at a time, below the session.
@Suite("AsyncHTTPClientTransport: the transport contract")
struct AsyncHTTPClientTransportTests {
    /// Starts one attempt on `transport` and waits for its completion.
    func run(
        _ transport: AsyncHTTPClientTransport, _ url: URL, collectsBody: Bool,
        timeout: Double = 60, takesDirectCompletions: Bool = false, configure: (inout URLRequest) -> Void = { _ in }
    ) async -> TransportEventLog {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        configure(&request)
        let log = TransportEventLog(expecting: transport.callbackQueue, takesDirectCompletions: takesDirectCompletions)
        _ = transport.startAttempt(HTTPTransportAttempt(request: request, collectsBody: collectsBody), events: log)
        #expect(await log.completed.wait(seconds: 60), "the attempt completed")
        return log
    }

    @Test func aCollectingAttemptReportsItsHeadThenItsCompletionWithTheWholeBody() async throws {
        let fixture = try Fixture()
        let transport = AsyncHTTPClientTransport()
        let log = await run(transport, fixture.server.url("/json"), collectsBody: true)
        #expect(log.all.count == 2)
        guard case .response(200) = log.all.first else {
            Issue.record("the response head comes first: \(log.all)")
            return
        }
        let completion = try #require(log.completions.first)
        #expect(completion.status == 200 && completion.error == nil)
        #expect(completion.body == Data(#"{"title":"hello","count":3,"tags":["a","b"]}"#.utf8))
        #expect(log.misplacedEvents.isEmpty, "\(log.misplacedEvents)")
    }

    /// The shortcut of `didCompleteDirectly`: a collected response's end is
    /// offered once, on the event loop; taken, nothing else is reported;
    /// refused, the head and completion follow on the callback queue (above).
    @Test(arguments: [true, false])
    func aCollectedResponsesEndIsOfferedOnTheEventLoop(taken: Bool) async throws {
        let fixture = try Fixture()
        let transport = AsyncHTTPClientTransport()
        let log = await run(transport, fixture.server.url("/json"), collectsBody: true, takesDirectCompletions: taken)
        #expect(log.directOffers == [true], "offered once, on the loop: \(log.directOffers)")
        #expect(log.all.count == 2 && log.completions.count == 1, "\(log.all)")
        let completion = try #require(log.completions.first)
        #expect(completion.status == 200 && completion.error == nil)
        #expect(completion.body == Data(#"{"title":"hello","count":3,"tags":["a","b"]}"#.utf8))
        #expect(log.misplacedEvents.isEmpty, "\(log.misplacedEvents)")
    }

    /// `EventLoopAffinity`: attempts started one after another (none other
    /// running) all ask for the same loop, the one their idle connection is
    /// on; started off the group's loops with `.indifferent`, they would go
    /// round the group's four loops.
    @Test func attemptsStartedOneAfterAnotherStayOnOneEventLoop() async throws {
        let fixture = try Fixture()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 4)
        let transport = AsyncHTTPClientTransport(configuration: HTTPClient.Configuration(), eventLoopGroup: group)
        var loops: [ObjectIdentifier?] = []
        for _ in 0..<8 {
            let log = await run(transport, fixture.server.url("/json"), collectsBody: true, takesDirectCompletions: true)
            #expect(log.completions.first?.error == nil)
            loops += log.directOfferLoops
        }
        #expect(loops.count == 8 && !loops.contains(nil))
        #expect(Set(loops).count == 1, "\(Set(loops).count) loops for 8 requests one after another")
        transport.shutdown()
        try await group.shutdownGracefully()
    }

    /// The request reaches the client on its event loop, after
    /// `startAttempt` returned: a cancel that comes before (the loop busy)
    /// still ends the attempt, once, with `URLError.cancelled`.
    @Test func aCancelBeforeTheClientHasTheRequestEndsTheAttempt() async throws {
        let fixture = try Fixture()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let transport = AsyncHTTPClientTransport(configuration: HTTPClient.Configuration(), eventLoopGroup: group)
        let busy = DispatchSemaphore(value: 0)
        group.next().execute { busy.wait() }
        var request = URLRequest(url: fixture.server.url("/json"))
        request.timeoutInterval = 60
        let log = TransportEventLog(expecting: transport.callbackQueue, takesDirectCompletions: true)
        let task = transport.startAttempt(HTTPTransportAttempt(request: request, collectsBody: true), events: log)
        task.cancel()
        busy.signal()
        #expect(await log.completed.wait(seconds: 60), "the attempt completed")
        #expect(log.completions.count == 1)
        #expect(log.completions.first?.error?.code == .cancelled, "\(log.all)")
        transport.shutdown()
        try await group.shutdownGracefully()
    }

    /// Failures and streamed attempts are never offered off the queue.
    @Test func aStreamedOrFailedAttemptIsNotOfferedOffTheQueue() async throws {
        let fixture = try Fixture()
        let transport = AsyncHTTPClientTransport()
        let streamed = await run(transport, fixture.server.url("/json"), collectsBody: false, takesDirectCompletions: true)
        #expect(streamed.directOffers.isEmpty && streamed.completions.count == 1)
        let refused = try #require(URL(string: "http://127.0.0.1:\(try LoopbackServer.unusedPort())/"))
        let failed = await run(transport, refused, collectsBody: true, takesDirectCompletions: true)
        #expect(failed.directOffers.isEmpty && failed.completions.first?.error?.code == .cannotConnectToHost)
    }

    @Test func aStreamedAttemptReportsChunksAsTheyArriveOnTheCallbackQueue() async throws {
        let parts = ["first ", "second ", "third"].map { Data($0.utf8) }
        let server = try LoopbackServer { _ in .chunked(chunks: parts, interval: 0.2) }
        defer { server.shutdown() }
        let transport = AsyncHTTPClientTransport()
        let log = await run(transport, server.url("/"), collectsBody: false)
        guard case .response(200) = log.all.first else {
            Issue.record("the response head comes first: \(log.all)")
            return
        }
        #expect(log.chunks.count >= 2, "chunks sent 0.2 s apart arrive separately")
        #expect(log.chunks.reduce(Data(), +) == Data("first second third".utf8))
        #expect(log.completions.count == 1)
        #expect(log.completions.first?.body == nil && log.completions.first?.error == nil)
        if case .complete = log.all.last {} else { Issue.record("the completion comes last: \(log.all)") }
        #expect(log.misplacedEvents.isEmpty, "\(log.misplacedEvents)")
    }

    @Test func aStreamedUploadReportsTheBytesSent() async throws {
        let fixture = try Fixture()
        let transport = AsyncHTTPClientTransport()
        let body = Data(repeating: 0x61, count: 100_000)
        let log = await run(transport, fixture.server.url("/echo"), collectsBody: false) { request in
            request.httpMethod = "POST"
            request.httpBody = body
        }
        let sent = log.all.compactMap { event -> (Int64, Int64?)? in
            if case .sent(let bytes, let expected) = event { return (bytes, expected) }
            return nil
        }
        #expect(sent.last?.0 == Int64(body.count))
        #expect(sent.last?.1 == Int64(body.count))
        #expect(log.completions.first?.error == nil)
    }

    @Test func gzipAndDeflateBodiesArriveDecoded() async throws {
        let json = String(repeating: #"{"title":"hello","count":3}"#, count: 20)
        let gzip = try #require(Data(base64Encoded: "H4sIAAAAAAACA6tWKsksyUlVslLKSM3JyVfSUUrOL80rUbIyrq0elRrZUgBlPBvaHAIAAA=="))
        let deflate = try #require(Data(base64Encoded: "eJxLSU3LSSxJTVEoSa0oUUgZUB4AgAg0bQ=="))
        let accepted = Recorder<String>()
        let server = try LoopbackServer { request in
            accepted.append(request.header("Accept-Encoding") ?? "")
            let (coding, body) = request.path == "/gzip" ? ("gzip", gzip) : ("deflate", deflate)
            return .response(status: 200, headers: [("Content-Encoding", coding)], body: body)
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        #expect(session.transport.acceptEncoding == "gzip, deflate")
        let gzipped = try await session.request(server.url("/gzip")).serializingString().value
        #expect(gzipped == json)
        let deflated = try await session.request(server.url("/deflate")).serializingString().value
        #expect(deflated == String(repeating: "deflated text ", count: 10))
        #expect(accepted.events.allSatisfy { $0.contains("gzip") && $0.contains("deflate") }, "\(accepted.events)")
    }

    @Test func cancelIsSafeFromManyThreadsAtOnceAndCompletesOnceWithCancelled() async throws {
        let fixture = try Fixture()
        let transport = AsyncHTTPClientTransport()
        var request = URLRequest(url: fixture.server.url("/never"))
        request.timeoutInterval = 600
        let log = TransportEventLog(expecting: transport.callbackQueue)
        let task = transport.startAttempt(HTTPTransportAttempt(request: request, collectsBody: false), events: log)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in task.cancel() }
        #expect(await log.completed.wait())
        task.cancel()
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(log.completions.count == 1)
        #expect(log.completions.first?.error?.code == .cancelled)
    }

    @Test func theIdleTimeoutIsTheRequestsTimeoutInterval() async throws {
        let fixture = try Fixture()
        let transport = AsyncHTTPClientTransport()
        let silent = await run(transport, fixture.server.url("/never"), collectsBody: true, timeout: 0.5)
        #expect(silent.completions.first?.error?.code == .timedOut)
    }

    @Test func theIdleTimeoutRestartsWithEveryChunk() async throws {
        // Thirty chunks half a second apart: fifteen seconds in all against a
        // 10 s idle timeout, with twenty times a gap's length to spare: when
        // the suites start together on two cores, a thread can wait seconds
        // (a 3 s timeout against quarter-second gaps failed in CI).
        let server = try LoopbackServer { _ in
            .trickle(body: Data(repeating: 0x62, count: 30), chunkSize: 1, interval: 0.5)
        }
        defer { server.shutdown() }
        let transport = AsyncHTTPClientTransport()
        let log = await run(transport, server.url("/"), collectsBody: true, timeout: 10)
        #expect(log.completions.first?.error == nil, "\(String(describing: log.completions.first?.error))")
        #expect(log.completions.first?.body?.count == 30)
    }

    @Test func failuresAreURLErrorsWithTheClientsErrorUnderneath() async throws {
        let fixture = try Fixture()
        let transport = AsyncHTTPClientTransport()
        let port = try LoopbackServer.unusedPort()
        let refused = await run(transport, URL(string: "http://127.0.0.1:\(port)/")!, collectsBody: true)
        #expect(refused.completions.first?.error?.code == .cannotConnectToHost)
        #expect(refused.completions.first?.error?.userInfo[NSUnderlyingErrorKey] != nil)
        let cut = await run(transport, fixture.server.url("/close-mid-body"), collectsBody: true)
        #expect(cut.completions.first?.error?.code == .networkConnectionLost, "\(String(describing: cut.completions.first?.error?.userInfo[NSUnderlyingErrorKey]))")
        #expect(cut.completions.first?.status == 200, "the response head had arrived")
    }

    /// SwiftNIO's parser refuses a head over 80 KiB; the failure said only
    /// "the server sent a malformed response".
    @Test func aHeadOverTheParsersLimitSaysSo() async throws {
        let head = "HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "a", count: 90 << 10))\r\nContent-Length: 2\r\n\r\nok"
        let server = try LoopbackServer { _ in .raw(Data(head.utf8)) }
        defer { server.shutdown() }
        let log = await run(AsyncHTTPClientTransport(), server.url("/"), collectsBody: true)
        let error = try #require(log.completions.first?.error)
        #expect(error.code == .badServerResponse)
        #expect(error.localizedDescription.contains("80 KiB"), "\(error.localizedDescription)")
    }

    @Test func aRequestTheClientCannotSendFailsOnTheCallbackQueue() async throws {
        let transport = AsyncHTTPClientTransport()
        let log = await run(transport, URL(string: "ftp://127.0.0.1/file")!, collectsBody: true)
        #expect(log.completions.count == 1)
        #expect(log.completions.first?.error?.code == .unsupportedURL)
        #expect(log.misplacedEvents.isEmpty, "\(log.misplacedEvents)")
    }

    @Test func validatorsAndSerializersNeverRunOnAnEventLoop() async throws {
        let fixture = try Fixture()
        let session = TestTransport.makeSession()
        let onEventLoop = Recorder<Bool>()
        struct Probe: Decodable {
            let title: String
            init(from decoder: any Decoder) throws {
                guard MultiThreadedEventLoopGroup.currentEventLoop == nil else { throw URLError(.unknown) }
                title = try decoder.container(keyedBy: Key.self).decode(String.self, forKey: .title)
            }
            enum Key: CodingKey { case title }
        }
        let probe = try await session.request(fixture.url("/json"))
            .validate { _, _, _ in
                onEventLoop.append(MultiThreadedEventLoopGroup.currentEventLoop != nil)
                return .success(())
            }
            .serializingDecodable(Probe.self).value
        #expect(probe.title == "hello")
        #expect(onEventLoop.events == [false])
    }
}
