import DeferredQueueAsyncHTTPClient
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
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
    func didReceive(data: Data) {
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
    func didComplete(response: HTTPURLResponse?, body: Data?, error: (any Error)?) {
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
        request.timeoutInterval = 120
        let task = transport.startAttempt(HTTPTransportAttempt(request: request, collectsBody: false), events: consumer)
        #expect(await consumer.firstChunk.wait(seconds: 120))
        var last: Int64 = -1
        var unchanged = 0
        var polls = 0
        // Up to 10 s; done once the count stood still for half a second.
        while polls < 100, unchanged < 5, server.bytesWritten <= 2 * Self.bound {
            polls += 1
            try await Task.sleep(for: .milliseconds(100))
            let now = server.bytesWritten
            unchanged = now == last ? unchanged + 1 : 0
            last = now
        }
        return (server, transport, consumer, task, server.bytesWritten)
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
