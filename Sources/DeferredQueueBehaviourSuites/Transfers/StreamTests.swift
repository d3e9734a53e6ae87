import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Streams: every chunk in order, then exactly one completion")
struct StreamTests {
    @Test func chunksArriveInOrderThenOneCompletion() async throws {
        let chunks = (0..<20).map { Data("line \($0)\n".utf8) }
        // The first `responseStream` starts the request, and a handler added
        // after a chunk went by misses it (documented): the server answers
        // only once both are added, or a descheduled test thread (CI, two
        // cores) would see the second handler miss "line 0".
        let bothAdded = DispatchSemaphore(value: 0)
        let server = try LoopbackServer { _ in
            _ = bothAdded.wait(timeout: .now() + 120)
            return .chunked(chunks: chunks, interval: 0.01)
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let first = StreamEventLog<Data, Never>()
        let second = StreamEventLog<Data, Never>()
        session.streamRequest(server.url("/"))
            .responseStream(on: handlerQueue) { first.record($0) }
            .responseStream(on: handlerQueue) { second.record($0) }
        bothAdded.signal()
        #expect(await first.done.wait(seconds: 120))
        #expect(await second.done.wait(seconds: 120))
        let expected = chunks.reduce(into: Data()) { $0.append($1) }
        #expect(first.body == expected)
        #expect(second.body == expected)
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(first.completions.count == 1)
        #expect(first.completions.events.first?.error == nil)
        #expect(first.completions.events.first?.response?.statusCode == 200)
    }

    @Test func streamingDataEndsAfterTheLastChunk() async throws {
        let server = try LoopbackServer { _ in .generated(length: 1 << 20, chunkSize: 32 << 10) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        var received = Data()
        for try await chunk in session.streamRequest(server.url("/")).streamingData() {
            received.append(chunk)
        }
        #expect(received == GeneratedContent.pattern.bytes(in: 0..<(1 << 20)))
    }

    @Test func streamingDataThrowsTheHTTPError() async throws {
        let port = try LoopbackServer.unusedPort()
        let session = TestTransport.makeSession()
        do {
            for try await _ in session.streamRequest("http://127.0.0.1:\(port)/").streamingData() {}
            Issue.record("the stream should fail")
        } catch let error as HTTPError {
            #expect(error.urlError?.code == .cannotConnectToHost)
        }
    }

    @Test func cancellingTheConsumingTaskCancelsTheRequest() async throws {
        let server = try LoopbackServer { _ in .generated(length: 1 << 30, chunkSize: 4 << 10, interval: 0.02) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let request = session.streamRequest(server.url("/"))
        let gotOne = Latch()
        let consumer = Task {
            for try await _ in request.streamingData() { gotOne.arrive() }
        }
        #expect(await gotOne.wait(seconds: 120))
        consumer.cancel()
        _ = await consumer.result
        #expect(await eventually(within: 120) { request.state == .cancelled })
        #expect(await eventually(within: 120) { server.openConnectionCount == 0 }, "the transfer stopped")
    }

    @Test func validateDropsTheBodyOfARejectedResponse() async throws {
        let server = try LoopbackServer { _ in .text(String(repeating: "not found ", count: 1_000), status: 404) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let log = StreamEventLog<Data, Never>()
        session.streamRequest(server.url("/")).validate().responseStream(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait(seconds: 120))
        #expect(log.values.count == 0)
        #expect(log.completions.events.first?.error?.responseCode == 404)
    }

    /// Alamofire's stream API over sockets: text and decoded chunks, a
    /// throwing handler, and `streamTask()` sequences.
    @Test func serializedStreamsThrowingHandlersAndStreamTasksOverSockets() async throws {
        let lines = (0..<5).map { Data(#"{"n":\#($0)}"#.utf8) }
        let server = try LoopbackServer { request in
            request.path == "/one" ? .chunked(chunks: [lines[3]]) : .chunked(chunks: lines, interval: 0.01)
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()

        let text = Recorder<String>()
        let textDone = Latch()
        session.streamRequest(server.url("/")).responseStreamString(on: handlerQueue) { stream in
            if let value = stream.value { text.append(value) }
            if stream.completion != nil { textDone.arrive() }
        }
        #expect(await textDone.wait())
        #expect(text.events.joined() == lines.map { String(decoding: $0, as: UTF8.self) }.joined())

        struct Tick: Decodable, Sendable { let n: Int }
        var decoded: [Int] = []
        for await event in session.streamRequest(server.url("/one")).streamTask().streamingDecodables(Tick.self) {
            if let tick = event.value { decoded.append(tick.n) }
        }
        #expect(decoded == [3])

        // A throwing handler ends its stream with its error — even when the
        // whole (small) body arrived and the transfer ended before the
        // handler reached its first chunk: its queue is held until then.
        struct Stop: Error {}
        let ended = Recorder<HTTPError?>()
        let stopped = Latch()
        let held = HeldQueue()
        let throwing = session.streamRequest(server.url("/")).responseStream(on: held.queue) { stream in
            if let completion = stream.completion {
                ended.append(completion.error)
                stopped.arrive()
            } else {
                throw Stop()
            }
        }
        #expect(await eventually { throwing.state == .finished })
        held.release()
        #expect(await stopped.wait())
        #expect(ended.events.first??.underlyingError is Stop, "\(ended.events)")
    }

    /// A handler that cancels from its chunk sees its stream end cancelled,
    /// by `stream.cancel()` or its token — even when the transfer ended before
    /// the handler, on its own held queue, got to the chunk (as in Alamofire,
    /// whose request waits for its stream handlers).
    @Test(arguments: [false, true])
    func aHandlerThatCancelsFromItsChunkEndsCancelled(byToken: Bool) async throws {
        let server = try LoopbackServer { _ in .chunked(chunks: [Data("one".utf8)]) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let ended = Recorder<String>()
        let done = Latch()
        let held = HeldQueue()
        let request = session.streamRequest(server.url("/")).responseStream(on: held.queue) { stream in
            if let completion = stream.completion {
                ended.append(completion.error?.kind ?? "whole body")
                done.arrive()
            } else if byToken {
                stream.token.cancel()
            } else {
                stream.cancel()
            }
        }
        #expect(await eventually { request.state == .finished }, "the transfer ended first")
        held.release()
        #expect(await done.wait())
        #expect(ended.events == ["cancelled"])
    }

    /// `automaticallyCancelOnStreamError`: a chunk the serializer refuses
    /// ends that handler's stream cancelled, even when the transfer ended
    /// before the handler got to the chunk.
    @Test func aRefusedChunkCancelsTheStreamEvenAfterTheTransferEnded() async throws {
        struct Tick: Decodable, Sendable { let n: Int }
        let server = try LoopbackServer { _ in .chunked(chunks: [Data("oops".utf8)]) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let ended = Recorder<String>()
        let done = Latch()
        let held = HeldQueue()
        let request = session.streamRequest(server.url("/"), automaticallyCancelOnStreamError: true)
            .responseStreamDecodable(of: Tick.self, on: held.queue) { stream in
                if let completion = stream.completion {
                    ended.append(completion.error?.kind ?? "whole body")
                    done.arrive()
                }
            }
        #expect(await eventually { request.state == .finished }, "the transfer ended first")
        held.release()
        #expect(await done.wait())
        #expect(ended.events == ["cancelled"])
    }

    @Test func aReaderThatPausesHoldsTheServerBack() async throws {
        try await MemoryHeavyWork.exclusively { try await pausedReader() }
    }

    /// Without back-pressure the whole body arrives while the reader sleeps
    /// (loopback moves it in well under a second) and waits in memory.
    private func pausedReader() async throws {
        // On URLSession, which cannot hold back (below), the whole body waits
        // in memory: a smaller one checks only that every chunk arrives.
        let heldBack = TestTransport.name != "URLSession"
        let length: Int64 = !heldBack ? 32 << 20 : Sanitizers.any ? 64 << 20 : 256 << 20
        let server = try LoopbackServer { _ in .generated(length: length, chunkSize: 256 << 10) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let growth = try await transferGrowth(bound: TransferMemory.bound) {
            var total: Int64 = 0
            var paused = false
            for try await chunk in session.streamRequest(server.url("/"), timeout: .infinity).streamingData() {
                total += Int64(chunk.count)
                if !paused {
                    paused = true
                    try await Task.sleep(nanoseconds: 3_000_000_000)
                }
            }
            #expect(total == length)
        }
        print("memory growth streaming \(length >> 20) MiB to a paused reader on \(TestTransport.name) (\(Sanitizers.description)): \(growth)")
        // URLSession on Linux cannot be held back for one reader (see streamingData()).
        if heldBack, !Sanitizers.any { #expect(growth.judged <= TransferMemory.bound, "memory grew by \(growth)") }
    }

    @Test func aGibibyteStreamKeepsMemoryFlat() async throws {
        // Paced at about 40 MiB/s, as the in-suite download is (DownloadTests
        // says why): unpaced beside every other suite, URLSession's shared work
        // queue stops waiting for the session and the body piles up (once
        // 1 GiB in a CI run). Unpaced, run alone: the test below.
        try await MemoryHeavyWork.exclusively { try await gibibyteStream(interval: 0.006, bound: TransferMemory.bound) }
    }

    /// The stream as fast as loopback, in a process of its own: `.ci/run`
    /// runs it with `DEFERREDQUEUE_RUN_ALONE=1`, beside the unpaced download.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DEFERREDQUEUE_RUN_ALONE"] == "1"))
    func anUnpacedGibibyteStreamRunAloneKeepsMemoryFlat() async throws {
        try await MemoryHeavyWork.exclusively { try await gibibyteStream(interval: 0, bound: TransferMemory.unpacedBound) }
    }

    private func gibibyteStream(interval: Double, bound: Double) async throws {
        let length: Int64 = Sanitizers.any ? 128 << 20 : 1 << 30
        let server = try LoopbackServer { _ in .generated(length: length, chunkSize: 256 << 10, interval: interval) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let growth = try await transferGrowth(bound: bound) {
            // The reader on a queue of its own: URLSession cannot wait for a
            // reader, so one starved by the suite's load would measure the load.
            let (total, mismatch) = try await offThePool { () -> (Int64, Int64?) in
                var total: Int64 = 0
                var mismatch: Int64?
                for try await chunk in session.streamRequest(server.url("/")).streamingData() {
                    if mismatch == nil, let offset = GeneratedContent.pattern.firstMismatch(in: chunk, startingAt: total) { mismatch = offset }
                    total += Int64(chunk.count)
                }
                return (total, mismatch)
            }
            #expect(total == length)
            #expect(mismatch == nil)
        }
        print("memory growth streaming \(length >> 20) MiB on \(TestTransport.name), \(interval == 0 ? "unpaced" : "paced") (\(Sanitizers.description)): \(growth)")
        if !Sanitizers.any { #expect(growth.judged <= bound, "memory grew by \(growth)") }
    }
}

/// A serial queue whose first block waits until `release()` (120 s at most):
/// a stream handler put on it reaches its chunks only once the test lets it,
/// after the transfer ended.
private struct HeldQueue {
    let queue = DispatchQueue(label: "held stream handler")
    private let gate = DispatchSemaphore(value: 0)

    init() {
        let gate = self.gate
        queue.async { _ = gate.wait(timeout: .now() + 120) }
    }

    func release() {
        gate.signal()
    }
}
