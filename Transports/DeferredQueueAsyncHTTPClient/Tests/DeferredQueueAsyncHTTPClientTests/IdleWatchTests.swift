import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue
@testable import DeferredQueueAsyncHTTPClient

/// One sweep keeps every running attempt's idle timeout (`IdleWatch`): it
/// must come at the earliest deadline of any attempt, learn of activity,
/// and forget attempts that ended.
@Suite("AsyncHTTPClientTransport: idle timeouts kept by one sweep", .timeLimit(.minutes(3)))
struct IdleWatchTests {
    /// Starts an attempt that collects its body, with `timeout` as its idle timeout.
    private func start(
        _ transport: AsyncHTTPClientTransport, _ url: URL, timeout: Double, collects: Bool = true
    ) -> (log: TransportEventLog, task: any HTTPTransportTask) {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        let log = TransportEventLog(expecting: transport.callbackQueue)
        let task = transport.startAttempt(HTTPTransportAttempt(request: request, collectsBody: collects), events: log)
        return (log, task)
    }

    /// A sweep scheduled for a long timeout must not hold back a shorter one
    /// that starts after it.
    @Test func aShorterTimeoutStartedLaterFailsAtItsOwnDeadline() async throws {
        let server = try LoopbackServer { _ in .neverRespond }
        defer { server.shutdown() }
        let transport = AsyncHTTPClientTransport()
        defer { transport.shutdown() }
        let long = start(transport, server.url("/long"), timeout: 600)
        #expect(await eventually(within: 30) { server.requestCount == 1 }, "the first request reached the server")
        let short = start(transport, server.url("/short"), timeout: 1)
        // A sweep left at the first attempt's deadline would keep this one for ten minutes.
        #expect(await short.log.completed.wait(seconds: 60), "the attempt with the short timeout completed")
        #expect(short.log.completions.first?.error?.code == .timedOut, "\(short.log.all)")
        #expect(long.log.completions.isEmpty, "the other attempt is still waiting: \(long.log.all)")
        long.task.cancel()
        #expect(await long.log.completed.wait(seconds: 60))
        #expect(long.log.completions.first?.error?.code == .cancelled, "\(long.log.all)")
    }

    /// A sweep that comes while an attempt is active waits for that
    /// attempt's new deadline, and fails it there if nothing moved since.
    @Test func anAttemptThatWentQuietAfterSomeActivityTimesOut() async throws {
        // The head and a first chunk after 0.6 s, the next one only after 10 minutes.
        let server = try LoopbackServer { _ in
            .delayed(0.6, .chunked(chunks: [Data("first".utf8), Data("second".utf8)], interval: 600))
        }
        defer { server.shutdown() }
        let transport = AsyncHTTPClientTransport()
        defer { transport.shutdown() }
        // 8 s: the head and first chunk must come before it, on a loaded machine too.
        let quiet = start(transport, server.url("/"), timeout: 8, collects: false)
        #expect(await quiet.log.completed.wait(seconds: 60), "the attempt completed")
        #expect(quiet.log.chunks.reduce(Data(), +) == Data("first".utf8), "\(quiet.log.all)")
        #expect(quiet.log.completions.first?.error?.code == .timedOut, "\(quiet.log.all)")
    }

    /// Activity keeps an attempt alive past a sweep, while a silent one
    /// next to it times out in that sweep.
    @Test func aTricklingAttemptOutlivesTheSweepThatFailsASilentOne() async throws {
        // Fifteen seconds of body, a byte every half second, against a 10 s
        // idle timeout: the whole outlasts the timeout, and the head and each
        // gap have twenty times the margin (with 4 s, the head alone did not
        // arrive in time in CI, where the suites start together on two cores).
        let body = Data("012345678901234567890123456789".utf8)
        let server = try LoopbackServer { request in
            request.path == "/silent" ? .neverRespond : .trickle(body: body, chunkSize: 1, interval: 0.5)
        }
        defer { server.shutdown() }
        let transport = AsyncHTTPClientTransport()
        defer { transport.shutdown() }
        let silent = start(transport, server.url("/silent"), timeout: 10)
        let trickling = start(transport, server.url("/trickle"), timeout: 10)
        #expect(await silent.log.completed.wait(seconds: 60))
        #expect(await trickling.log.completed.wait(seconds: 60))
        #expect(silent.log.completions.first?.error?.code == .timedOut, "\(silent.log.all)")
        let completion = try #require(trickling.log.completions.first)
        #expect(completion.error == nil && completion.body == body, "\(trickling.log.all)")
    }

    /// Every attempt leaves the watch when it ends, however it ends.
    @Test func endedAttemptsLeaveTheWatch() async throws {
        let fixture = try Fixture()
        let silent = try LoopbackServer { _ in .neverRespond }
        defer { silent.shutdown() }
        let transport = AsyncHTTPClientTransport()
        defer { transport.shutdown() }
        let answered = (0..<40).map { _ in start(transport, fixture.server.url("/json"), timeout: 60) }
        // Fewer than the client's 8 connections per host: every one reaches the server.
        let cancelled = (0..<6).map { _ in start(transport, silent.url("/"), timeout: 3600) }  // cancelled, never timed out
        #expect(await eventually(within: 60) { silent.requestCount == 6 }, "every silent request reached its server")
        #expect(transport.idleWatch.watchedCount >= 6, "the silent attempts are watched")
        for attempt in cancelled { attempt.task.cancel() }
        for attempt in answered + cancelled { #expect(await attempt.log.completed.wait(seconds: 60)) }
        #expect(answered.allSatisfy { $0.log.completions.first?.status == 200 })
        #expect(cancelled.allSatisfy { $0.log.completions.first?.error?.code == .cancelled })
        #expect(transport.idleWatch.watchedCount == 0)
    }
}
