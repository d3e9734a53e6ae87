import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing

/// A stream's chunks reach its handlers as they arrive, so a retried
/// attempt's body would be appended to what they already hold. Alamofire
/// retries such a stream all the same; here a failure is retried only
/// while no chunk was handed over.
@Suite("Streams: retried only before a chunk was handed over")
struct StreamRetryTests {
    /// The whole body, as the retried attempt sends it. (Computed, as the
    /// next: a static's storage, never freed, is a leak to LeakSanitizer.)
    private static var parts: [Data] { ["PART1-", "PART2-", "PART3"].map { Data($0.utf8) } }

    /// A chunked `200` whose connection closes after its first two chunks.
    private static var cutShortAfterTwoChunks: Data {
        Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nPART1-\r\n6\r\nPART2-\r\n".utf8)
    }

    /// What a retry would have appended to the two chunks the handler holds
    /// (29 bytes reported as a whole body): the stream ends with the
    /// transport's failure, no retrier is asked (one may have side effects),
    /// and the monitors hear no retry.
    @Test func aStreamCutShortAfterItsFirstChunksEndsWithTheFailureUnretried() async throws {
        let hits = Counter()
        let server = try LoopbackServer { _ in
            hits.increment() == 1 ? .raw(Self.cutShortAfterTwoChunks) : .chunked(chunks: Self.parts)
        }
        defer { server.shutdown() }
        let (session, asked, retrying) = Self.retryingSession()
        let log = StreamEventLog<Data, Never>()
        session.streamRequest(server.url("/")).validate().responseStream(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait(seconds: 120))
        #expect(String(decoding: log.body, as: UTF8.self) == "PART1-PART2-", "only the first attempt's chunks")
        let error = log.completions.events.first?.error
        #expect(error != nil, "a body cut short is not a whole one")
        #expect(error?.urlError?.code == .networkConnectionLost, "\(String(describing: error))")
        #expect(log.completions.count == 1)
        #expect(asked.count == 0, "no retrier is asked")
        #expect(retrying.count == 0, "monitors hear no retry")
        #expect(hits.count == 1)
    }

    enum EarlyFailure: String, CaseIterable, Sendable {
        /// A `503` that `validate()` refuses: its body is dropped unseen.
        case refusedHead
        /// A `200` head, then the connection closes before any of the body.
        case lostAfterTheHead
    }

    /// Before any chunk reached a handler a failed attempt is retried as it
    /// always was, and the retried attempt's body is the stream, once.
    @Test(arguments: EarlyFailure.allCases)
    func aStreamThatFailsBeforeItsFirstChunkIsRetried(_ failure: EarlyFailure) async throws {
        let hits = Counter()
        let server = try LoopbackServer { _ in
            guard hits.increment() == 1 else { return .chunked(chunks: Self.parts) }
            switch failure {
            case .refusedHead: return .chunked(status: 503, chunks: [Data("busy".utf8)])
            case .lostAfterTheHead: return .closeAfterHeaders(declaredLength: 100)
            }
        }
        defer { server.shutdown() }
        let (session, asked, retrying) = Self.retryingSession()
        let log = StreamEventLog<Data, Never>()
        session.streamRequest(server.url("/")).validate().responseStream(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait(seconds: 120))
        #expect(String(decoding: log.body, as: UTF8.self) == "PART1-PART2-PART3")
        #expect(log.completions.events.first?.error == nil)
        #expect(asked.count == 1)
        #expect(retrying.count == 1)
        #expect(hits.count == 2)
    }

    /// A session whose retrier counts what it is asked and leaves the
    /// decision to a `RetryPolicy`, with a monitor counting retries.
    private static func retryingSession() -> (Session, asked: Counter, retrying: Counter) {
        let asked = Counter()
        let retrier = Retrier { _, _, _, completion in
            asked.increment()
            completion(.doNotRetry)
        }
        let retrying = Counter()
        let monitor = ClosureEventMonitor()
        monitor.requestIsRetrying = { _ in retrying.increment() }
        let session = TestTransport.makeSession(
            interceptor: retrier, eventMonitors: [monitor], retryPolicy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01)
        )
        return (session, asked, retrying)
    }
}
