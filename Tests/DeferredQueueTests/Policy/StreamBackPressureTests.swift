import DeferredQueue
import DeferredQueueTesting
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite("streamingData(): a slow reader holds the transport back, on a transport that waits")
struct StreamBackPressureTests {
    /// 32 chunks of 256 KiB: 8 MiB, eight times what may wait for a reader.
    private static var chunks: [Data] { (0..<32).map { Data(repeating: UInt8($0), count: 256 << 10) } }

    @Test func aPausedReaderStopsTheTransferAndThenGetsEveryChunkInOrder() async throws {
        let transport = MockTransport { _ in .chunks(Self.chunks) }
        let session = Session(transport: transport)
        let received = Atomic<Int64>(0)
        let request = session.streamRequest("http://stream.invalid/")
        // The sequence first: it starts the request, and a stream handler added
        // after the start misses the chunks before it.
        let chunks = request.streamingData()
        // A second reader, which keeps up, counts what the transport delivers
        // (it may miss the first chunk: the request has started).
        request.responseStream(on: DispatchQueue(label: "counter")) { stream in
            if case .stream(.success(let data)) = stream.event { received.add(Int64(data.count), ordering: .relaxed) }
        }
        var iterator = chunks.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first == Self.chunks[0])
        // The reader pauses. With nothing holding the transport back, all 8 MiB
        // arrive at once; held back, no more than the 1 MiB limit (plus the
        // chunk that crossed it and the one taken) is ever delivered.
        let overran = await eventually(within: 3) { received.load(ordering: .relaxed) > 2 << 20 }
        #expect(!overran, "\(received.load(ordering: .relaxed)) bytes arrived while the reader paused")
        var rest: [Data] = []
        while let chunk = try await iterator.next() { rest.append(chunk) }
        #expect([first] + rest == Self.chunks)
    }

    @Test func aReaderThatStopsEarlyCancelsTheRequest() async throws {
        let transport = MockTransport { _ in .chunks(Self.chunks) }
        let session = Session(transport: transport)
        let request = session.streamRequest("http://stream.invalid/")
        do {
            var iterator = request.streamingData().makeAsyncIterator()
            _ = try await iterator.next()
        }
        #expect(await eventually { request.state == .cancelled })
    }

    @Test func theRequestsFailureEndsTheSequenceAfterTheChunksBeforeIt() async throws {
        let transport = MockTransport { _ in .chunks(Array(Self.chunks.prefix(3)), status: 503) }
        let session = Session(transport: transport)
        var count = 0
        do {
            for try await _ in session.streamRequest("http://stream.invalid/").validate().streamingData() { count += 1 }
            Issue.record("a rejected response must throw")
        } catch let error as HTTPError {
            #expect(error.responseCode == 503)
        }
        #expect(count == 0, "validate() drops a rejected response's body")
    }
}
