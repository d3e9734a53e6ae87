import Foundation
import LockSupport
import Synchronization

/// The chunks between a stream request and the task iterating its
/// ``DataStreamRequest/streamingData()``: a reader that falls behind holds
/// the transport back instead of letting the body pile up in memory.
///
/// Chunks are appended on the transport's callback queue, never blocking it.
/// Past ``limit`` bytes waiting, a chunk's `release` (the transport's
/// `handled`) is kept until the reader has taken the backlog down to half
/// the limit; the transport reads no further meanwhile. A chunk that comes
/// without one (a transport that cannot wait) is kept all the same.
final class StreamingDataBuffer: Sendable {
    private typealias Reader = CheckedContinuation<Data?, any Error>
    private typealias Release = @Sendable () -> Void

    /// The bytes waiting before the transport is held back.
    static let limit = 1 << 20

    private struct State {
        var chunks: [Data] = []
        /// The first chunk not taken yet.
        var head = 0
        var bytes = 0
        /// Releases kept while over the limit, in arrival order.
        var withheld: [@Sendable () -> Void] = []
        /// Set once: `.success` after the last chunk, or the failure.
        var end: Result<Void, any Error>?
        /// A reader waiting for the next chunk.
        var reader: CheckedContinuation<Data?, any Error>?
        /// The reader is gone: keep nothing, withhold nothing.
        var abandoned = false
    }

    private let state = Mutex(State())

    /// A chunk from the transport; `release` is called once the buffer can
    /// take more (at once when it is under the limit).
    func append(_ data: Data, release: (@Sendable () -> Void)?) {
        enum Step { case hand(CheckedContinuation<Data?, any Error>), release, keep }
        let step = state.withLock(owner: self) { state -> Step in
            if state.abandoned { return .release }
            if let reader = state.reader {
                state.reader = nil
                return .hand(reader)
            }
            state.chunks.append(data)
            state.bytes += data.count
            guard state.bytes > Self.limit, let release else { return .release }
            state.withheld.append(release)
            return .keep
        }
        switch step {
        case .hand(let reader):
            reader.resume(returning: data)
            release?()
        case .release: release?()
        case .keep: break
        }
    }

    /// The end of the body: `nil` after the last chunk, or the failure. The
    /// transport is done, so nothing is withheld from it any longer.
    func finish(throwing error: (any Error)?) {
        let (reader, releases) = state.withLock(owner: self) { state -> (Reader?, [Release]) in
            guard state.end == nil else { return (nil, []) }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.withheld = []; state.reader = nil }
            return (state.reader, state.withheld)
        }
        for release in releases { release() }
        if let error { reader?.resume(throwing: error) } else { reader?.resume(returning: nil) }
    }

    /// The reader is gone: drop what waits and let the transport go on.
    func abandon() {
        let (releases, reader) = state.withLock(owner: self) { state -> ([Release], Reader?) in
            state.abandoned = true
            state.chunks = []
            state.head = 0
            state.bytes = 0
            defer { state.withheld = []; state.reader = nil }
            return (state.withheld, state.reader)
        }
        reader?.resume(returning: nil)
        for release in releases { release() }
    }

    /// The bytes of every chunk the buffer still references (for tests).
    var retainedBytes: Int { state.withLock(owner: self) { $0.chunks.reduce(0) { $0 + $1.count } } }

    /// Whether the body ended (the last chunk arrived, or the failure).
    var hasEnded: Bool { state.withLock(owner: self) { $0.end != nil } }

    /// The next chunk, `nil` after the last, or the failure.
    func next() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            enum Step { case chunk(Data, [@Sendable () -> Void]), end(Result<Void, any Error>), wait }
            let step = state.withLock(owner: self) { state -> Step in
                if state.head < state.chunks.count {
                    // Taken out, not copied: a reader that keeps pace with
                    // the transport never drains the buffer, and a slot that
                    // still held its chunk kept every byte read since.
                    let chunk = state.chunks[state.head]
                    state.chunks[state.head] = Data()
                    state.head += 1
                    state.bytes -= chunk.count
                    if state.head == state.chunks.count {
                        state.chunks.removeAll(keepingCapacity: true)
                        state.head = 0
                    } else if state.head >= 1024, state.head * 2 >= state.chunks.count {
                        state.chunks.removeFirst(state.head)
                        state.head = 0
                    }
                    guard state.bytes <= Self.limit / 2, !state.withheld.isEmpty else { return .chunk(chunk, []) }
                    defer { state.withheld = [] }
                    return .chunk(chunk, state.withheld)
                }
                if let end = state.end { return .end(end) }
                if state.abandoned { return .end(.success(())) }
                state.reader = continuation
                return .wait
            }
            switch step {
            case .chunk(let chunk, let releases):
                continuation.resume(returning: chunk)
                for release in releases { release() }
            case .end(.success): continuation.resume(returning: nil)
            case .end(.failure(let error)): continuation.resume(throwing: error)
            case .wait: break
            }
        }
    }
}
