import DeferredQueueAsyncHTTPClient
import DeferredQueueBehaviourSuites
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import TestSupport
import Testing
@testable import DeferredQueue

/// Transport events whose first chunk holds the callback queue until
/// ``release()``: a consumer far slower than the network.
private final class HeldConsumer: HTTPTransportEvents {
    let firstChunk = Latch()
    let completed = Latch()
    private let held = DispatchSemaphore(value: 0)
    private let state = Mutex<(received: Int64, error: URLError?, holding: Bool)>((0, nil, true))

    var received: Int64 { state.withLock { $0.received } }
    var error: URLError? { state.withLock { $0.error } }

    func release() { held.signal() }

    func didReceive(response: HTTPURLResponse) {}
    func didReceive(data: Data, handled: (@Sendable () -> Void)?) {
        defer { handled?() }
        let hold = state.withLock { state -> Bool in
            state.received += Int64(data.count)
            defer { state.holding = false }
            return state.holding
        }
        if hold {
            firstChunk.arrive()
            held.wait()
        }
    }
    func didSend(bytes: Int64, of expected: Int64?) {}
    func didDownload(bytes: Int64, of expected: Int64?) {}
    func didFinishDownloading(to file: URL) {}
    func didComplete(body: Data?, error: (any Error)?) {
        state.withLock { $0.error = error as? URLError }
        completed.arrive()
    }
}

@Suite("AsyncHTTPClientTransport: a streamed body waits for the callback queue")
struct BackPressureTests {
    /// How far the server may get ahead of a consumer that handles nothing:
    /// the transport's 1 MiB plus the client's read buffer and both sockets'
    /// kernel buffers. Without back-pressure the client reads on at loopback
    /// speed, hundreds of MiB a second.
    static let bound: Int64 = 48 << 20

    /// Starts a streamed attempt for a 256 MiB body whose consumer holds the
    /// callback queue at the first chunk, and waits until the server stops
    /// getting ahead (or clearly runs away).
    /// (The transport is returned to keep it alive: going away, it shuts its client down.)
    private func startHeld() async throws -> (
        CountingBodyServer, AsyncHTTPClientTransport, HeldConsumer, any HTTPTransportTask, ahead: Int64
    ) {
        let server = try CountingBodyServer(length: 256 << 20)
        let transport = AsyncHTTPClientTransport()
        let consumer = HeldConsumer()
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/")))
        request.timeoutInterval = .infinity  // held back on purpose: no timeout a stalled test could reach
        let task = transport.startAttempt(HTTPTransportAttempt(request: request, collectsBody: false), events: consumer)
        #expect(await consumer.firstChunk.wait(seconds: 120))
        return (server, transport, consumer, task, try await Self.settledLead(of: server))
    }

    /// How far `server` got, once its count stood still for half a second
    /// (up to 10 s), or as soon as it clearly ran away.
    private static func settledLead(of server: CountingBodyServer) async throws -> Int64 {
        var last: Int64 = -1
        var unchanged = 0
        var polls = 0
        while polls < 100, unchanged < 5, server.bytesWritten <= 2 * bound {
            polls += 1
            try await Task.sleep(for: .milliseconds(100))
            let now = server.bytesWritten
            unchanged = now == last ? unchanged + 1 : 0
            last = now
        }
        return server.bytesWritten
    }

    @Test func theClientStopsReadingWhileTheCallbackQueueIsBehindAndResumesAfter() async throws {
        let (server, transport, consumer, _, ahead) = try await startHeld()
        defer { server.close() }
        defer { withExtendedLifetime(transport) {} }
        #expect(ahead <= Self.bound, "the server got \(ahead >> 20) MiB ahead of a consumer that handled nothing")
        consumer.release()
        #expect(await consumer.completed.wait(seconds: 120))
        #expect(consumer.error == nil)
        #expect(consumer.received == 256 << 20, "the whole body arrives once the consumer catches up")
    }

    /// The session reports a chunk handled only once every stream handler
    /// ran it, on whatever queue: a handler on a queue of its own holds the
    /// client back too (before, chunks piled up on that queue).
    @Test func aSlowStreamHandlerOnItsOwnQueueHoldsTheClientBack() async throws {
        let server = try CountingBodyServer(length: 256 << 20)
        defer { server.close() }
        let session = TestTransport.makeSession()
        let handlerQueue = DispatchQueue(label: "BackPressureTests.slow-handler")
        let firstChunk = Latch()
        let held = DispatchSemaphore(value: 0)
        let received = Atomic<Int64>(0)
        let completion = Latch()
        let failure = Mutex<HTTPError?>(nil)
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/"))
        session.streamRequest(url, timeout: .infinity).responseStream(on: handlerQueue) { stream in
            switch stream.event {
            case .stream(.success(let data)):
                if received.add(Int64(data.count), ordering: .relaxed).oldValue == 0 {
                    firstChunk.arrive()
                    held.wait()
                }
            case .complete(let done):
                failure.withLock { $0 = done.error }
                completion.arrive()
            }
        }
        #expect(await firstChunk.wait(seconds: 120))
        let ahead = try await Self.settledLead(of: server)
        #expect(ahead <= Self.bound, "the server got \(ahead >> 20) MiB ahead of a handler that handled nothing")
        held.signal()
        #expect(await completion.wait(seconds: 120))
        #expect(failure.withLock { $0 } == nil)
        #expect(received.load(ordering: .relaxed) == 256 << 20, "the whole body arrives once the handler catches up")
    }

    @Test func cancellingAHeldBackAttemptCompletesIt() async throws {
        let (server, transport, consumer, task, _) = try await startHeld()
        defer { server.close() }
        defer { withExtendedLifetime(transport) {} }
        task.cancel()
        consumer.release()
        #expect(await consumer.completed.wait(seconds: 120))
        #expect(consumer.error?.code == .cancelled)
        #expect(consumer.received < 256 << 20)
    }
}
