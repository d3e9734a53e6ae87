import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Synchronization

/// One large transfer of the benchmark, run through a ``Session``.
enum Transfer: String, CaseIterable, Sendable {
    case download = "download to file"
    case stream = "stream (streamingData)"
    case responseStream = "stream (responseStream)"
    case fileUpload = "file upload"
    case multipartUpload = "multipart upload"

    var isUpload: Bool { self == .fileUpload || self == .multipartUpload }

    /// What went wrong with a transfer: the benchmark stops rather than report a figure for it.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What `Reply.echo` and `Reply.multipartEcho` say about a body (the fields used here).
    private struct Echo: Decodable {
        struct Part: Decodable {
            let length: Int64
            let digest: String
        }
        let bodyLength: Int64
        let bodyDigest: String
        let parts: [Part]?
    }

    /// Runs the transfer of `length` bytes and checks what arrived.
    ///
    /// Downloads and streams read `url` (a generated body of `length`
    /// bytes of the server's pattern); uploads send `file` (`length` bytes,
    /// whose digest is `digest`) to `url`, whose server echoes the length
    /// and digest it read.
    func run(session: Session, url: URL, length: Int64, file: URL, digest: String, queue: DispatchQueue) async throws {
        switch self {
        case .download:
            let response = await withCheckedContinuation { continuation in
                session.download(url).responseURL(queue: queue) { continuation.resume(returning: $0) }
            }
            guard let saved = response.value else { throw Failure(description: "download failed: \(String(describing: response.error))") }
            defer { try? FileManager.default.removeItem(at: saved) }
            let size = try FileManager.default.attributesOfItem(atPath: saved.path)[.size] as? Int64
            guard size == length else { throw Failure(description: "downloaded \(size ?? -1) bytes, expected \(length)") }
        case .stream:
            var total: Int64 = 0
            for try await chunk in session.streamRequest(url).streamingData() {
                try Self.check(chunk, at: total)
                total += Int64(chunk.count)
            }
            guard total == length else { throw Failure(description: "streamed \(total) bytes, expected \(length)") }
        case .responseStream:
            // The handler runs on `queue`, not on the transport's queue: chunks
            // wait there while the handler checks the one before.
            let tally = StreamTally()
            let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Int64, any Error>, Never>) in
                session.streamRequest(url).responseStream(on: queue) { stream in
                    switch stream.event {
                    case .stream(.success(let chunk)): tally.add(chunk)
                    case .complete(let completion): continuation.resume(returning: tally.result(error: completion.error))
                    }
                }
            }
            let total = try outcome.get()
            guard total == length else { throw Failure(description: "streamed \(total) bytes, expected \(length)") }
        case .fileUpload, .multipartUpload:
            let request = self == .fileUpload
                ? session.upload(file, to: url)
                : session.upload(multipartFormData: { $0.append(file, withName: "file") }, to: url)
            let response = await withCheckedContinuation { continuation in
                request.responseData(queue: queue) { continuation.resume(returning: $0) }
            }
            guard let body = response.value else { throw Failure(description: "upload failed: \(String(describing: response.error))") }
            let echo = try JSONDecoder().decode(Echo.self, from: body)
            let (received, receivedDigest) = self == .fileUpload
                ? (echo.bodyLength, echo.bodyDigest)
                : (echo.parts?.first?.length ?? -1, echo.parts?.first?.digest ?? "")
            guard received == length, receivedDigest == digest else {
                throw Failure(description: "the server read \(received) bytes (digest \(receivedDigest)), expected \(length) (\(digest))")
            }
        }
    }

    /// Checks a streamed chunk against the server's pattern: the consumer's
    /// work per chunk (it reads every byte).
    static func check(_ chunk: Data, at offset: Int64) throws {
        if let mismatch = GeneratedContent.pattern.firstMismatch(in: chunk, startingAt: offset) {
            throw Failure(description: "streamed byte \(mismatch) differs from the server's")
        }
    }
}

/// The bytes a `responseStream` handler has seen and the first mismatch, behind one lock.
private final class StreamTally: Sendable {
    private let state = Mutex<(total: Int64, failure: (any Error)?)>((0, nil))

    func add(_ chunk: Data) {
        state.withLock { state in
            if state.failure == nil {
                do { try Transfer.check(chunk, at: state.total) } catch { state.failure = error }
            }
            state.total += Int64(chunk.count)
        }
    }

    func result(error: (any Error)?) -> Result<Int64, any Error> {
        state.withLock { state in
            if let failure = state.failure ?? error { return .failure(failure) }
            return .success(state.total)
        }
    }
}
