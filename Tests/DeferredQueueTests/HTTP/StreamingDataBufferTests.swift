import Foundation
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("StreamingDataBuffer: a reader that falls behind holds the transport back")
struct StreamingDataBufferTests {
    private static var half: Data { Data(count: StreamingDataBuffer.limit / 2) }

    @Test func underTheLimitEveryChunkIsReleasedAtOnce() {
        let buffer = StreamingDataBuffer()
        let released = Counter()
        buffer.append(Self.half) { released.increment() }
        buffer.append(Self.half) { released.increment() }
        #expect(released.count == 2)
    }

    @Test func pastTheLimitReleasesWaitUntilTheReaderTakesTheBacklogToHalf() async throws {
        let buffer = StreamingDataBuffer()
        let released = Counter()
        for _ in 0..<4 { buffer.append(Self.half) { released.increment() } }
        // 2 MiB waiting: the third and fourth chunks went over the 1 MiB limit.
        #expect(released.count == 2)
        _ = try await buffer.next()
        _ = try await buffer.next()
        #expect(released.count == 2, "1 MiB still waits")
        _ = try await buffer.next()
        #expect(released.count == 4, "down to half the limit: the transport may read on")
    }

    /// A reader that keeps pace never drains the buffer: the transport is
    /// released at half the limit and refills it first. Every chunk read
    /// stayed referenced until the buffer emptied (840 MB for a reader
    /// 1 ms a chunk behind an endless body).
    @Test func chunksReadAreReleasedThoughTheBufferNeverDrains() async throws {
        let buffer = StreamingDataBuffer()
        let chunk = Data(count: 4 << 10)
        for _ in 0..<200 { buffer.append(chunk, release: nil) }
        for _ in 0..<4_000 {
            buffer.append(chunk, release: nil)
            _ = try await buffer.next()
        }
        #expect(buffer.retainedBytes <= 201 * chunk.count, "\(buffer.retainedBytes) bytes held for 201 chunks waiting")
    }

    @Test func aChunkWithoutReleaseIsKeptAnyway() async throws {
        let buffer = StreamingDataBuffer()
        for index in 0..<4 { buffer.append(Data([UInt8(index)]) + Self.half, release: nil) }
        buffer.finish(throwing: nil)
        var firstBytes: [UInt8] = []
        while let chunk = try await buffer.next() { firstBytes.append(chunk[0]) }
        #expect(firstBytes == [0, 1, 2, 3])
    }

    @Test func theEndReleasesWhatWasWithheldAndTheReaderStillGetsEveryChunk() async throws {
        let buffer = StreamingDataBuffer()
        let released = Counter()
        for _ in 0..<4 { buffer.append(Self.half) { released.increment() } }
        buffer.finish(throwing: nil)
        #expect(released.count == 4)
        var count = 0
        while try await buffer.next() != nil { count += 1 }
        #expect(count == 4)
    }

    @Test func aFailureComesAfterTheChunksBeforeIt() async throws {
        let buffer = StreamingDataBuffer()
        buffer.append(Data("a".utf8), release: nil)
        buffer.finish(throwing: TestError(7))
        #expect(try await buffer.next() == Data("a".utf8))
        await #expect(throws: TestError(7)) { try await buffer.next() }
    }

    @Test func aWaitingReaderGetsTheNextChunkDirectly() async throws {
        let buffer = StreamingDataBuffer()
        let reader = Task { try await buffer.next() }
        // The reader may or may not be waiting yet: either way it gets the chunk.
        buffer.append(Data("x".utf8), release: nil)
        #expect(try await reader.value == Data("x".utf8))
    }

    @Test func abandoningReleasesEverythingAndEndsAWaitingReader() async throws {
        let buffer = StreamingDataBuffer()
        let released = Counter()
        for _ in 0..<4 { buffer.append(Self.half) { released.increment() } }
        buffer.abandon()
        #expect(released.count == 4)
        #expect(try await buffer.next() == nil)
        buffer.append(Self.half) { released.increment() }
        #expect(released.count == 5, "after the reader left, chunks are dropped and released")
        #expect(try await buffer.next() == nil)
    }
}
