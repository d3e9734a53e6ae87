import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The transitions of an attempt's body as it arrives, by kind: kept in
// memory, handed to a stream's handlers, or written to a download's file
// (outside the lock: the file is handed out for each write and back after).

extension RequestStateMachine {
    enum ChunkAction: Sendable {
        /// Dispatch the progress to the handlers.
        case report(TransferProgress, to: [ProgressHandler])
        /// The body went past its limit: finish with the error.
        case fail(HTTPError)
        /// A stale attempt's chunk, or no handler to tell.
        case none
    }

    /// A chunk of attempt `number`'s body, kept in memory within the limit.
    mutating func collect(_ data: Data, attempt number: Int) -> ChunkAction {
        let handlers = progressHandlers
        return updateAttempt(inFlight: number) { attempt -> ChunkAction in
            guard case .body(var collector) = attempt.received else { return .none }
            attempt.received = .nothing // `collector` is now the body's only reference
            defer { attempt.received = .body(collector) }
            do throws(HTTPError) {
                try collector.append(data)
            } catch {
                return .fail(error)
            }
            guard !handlers.isEmpty else { return .none }
            return .report(attempt.progress(completed: Int64(collector.body.count)), to: handlers)
        } ?? .none
    }

    /// The transport's file of attempt `number` grew to `bytes` (downloads the
    /// transport writes itself). `monitored`: report the progress even
    /// without handlers, for the event monitors.
    func downloadGrew(to bytes: Int64, of expected: Int64?, attempt number: Int, sessionLimit: Int, monitored: Bool) -> ChunkAction {
        guard case .running(let attempt) = state, attempt.isInFlight(number) else { return .none }
        let limit = bodyLimit(session: sessionLimit)
        // Past the limit: stop it now (its file goes with the cancelled task).
        if bytes > Int64(limit) { return .fail(.responseTooLarge(limit: limit)) }
        guard monitored || !progressHandlers.isEmpty else { return .none }
        let encoded = attempt.response.map { Request.decodedLength(of: $0) == nil } ?? false
        return .report(TransferProgress(completed: bytes, expected: encoded ? nil : expected), to: progressHandlers)
    }

    /// The upload progress handlers, for a progress event of attempt
    /// `number`; none for a stale attempt.
    func uploadProgressHandlers(attempt number: Int) -> [ProgressHandler] {
        guard case .running(let attempt) = state, attempt.isInFlight(number) else { return [] }
        return uploadProgressHandlers
    }

    // MARK: - Streams

    enum StreamChunkAction: Sendable {
        /// Hand the chunk to each handler.
        case deliver(to: [StreamHandler])
        /// The chunks went past their limit: finish with the error.
        case fail(HTTPError)
        /// A stale attempt's chunk, or the body of a head the request goes on from.
        case none
    }

    /// A chunk of `count` bytes of attempt `number`'s body, for a stream's handlers.
    mutating func receiveStreamChunk(count: Int, attempt number: Int, sessionLimit: Int) -> StreamChunkAction {
        guard case .stream(let stream) = kind else { return .none }
        let limit = bodyLimit(session: sessionLimit)
        let action = updateAttempt(inFlight: number) { attempt -> StreamChunkAction in
            guard attempt.response != nil, attempt.rejection == nil, case .streamed(let counted) = attempt.received
            else { return .none }
            guard counted + Int64(count) <= Int64(limit) else { return .fail(.responseTooLarge(limit: limit)) }
            attempt.received = .streamed(counted + Int64(count))
            // A redirect's or an answered challenge's body is not the stream,
            // but counts against the limit: the request waits for its end.
            return attempt.continues ? .none : .deliver(to: stream.handlers)
        } ?? .none
        if case .deliver(let handlers) = action, !handlers.isEmpty { streamChunkHandedOver = true }
        return action
    }

    // MARK: - Downloads

    enum DownloadChunkAction: Sendable {
        /// Write the chunk to `file` (to a new one when `nil`) after the lock,
        /// then hand the file back with ``downloadChunkWritten(_:attempt:monitored:)``.
        case write(to: DownloadFile?)
        /// The file would grow past its limit: finish with the error (nothing
        /// more is written; the file is removed as the request finishes).
        case fail(HTTPError)
        /// A stale attempt's chunk.
        case none
    }

    /// A chunk of `count` bytes of attempt `number`'s body, for its download file.
    mutating func receiveDownloadChunk(count: Int, attempt number: Int, sessionLimit: Int) -> DownloadChunkAction {
        let limit = Int64(bodyLimit(session: sessionLimit))
        return updateAttempt(inFlight: number) { attempt -> DownloadChunkAction in
            guard case .file(let file) = attempt.received else { return .none }
            switch file {
            case .none:
                guard Int64(count) <= limit else { return .fail(.responseTooLarge(limit: Int(limit))) }
                attempt.received = .file(.writing(nil))
                return .write(to: nil)
            case .ready(let ready):
                guard ready.length + Int64(count) <= limit else { return .fail(.responseTooLarge(limit: Int(limit))) }
                // Handed out: the state keeps no reference to its buffer.
                attempt.received = .file(.writing(ready.url))
                return .write(to: ready)
            case .writing:
                preconditionFailure("a chunk arrived while the previous one was being written")
            }
        } ?? .none
    }

    enum DownloadChunkWrittenAction: Sendable {
        /// Dispatch the progress to the handlers.
        case report(TransferProgress, to: [ProgressHandler])
        /// The attempt ended while the chunk was written: remove the file.
        case discard(DownloadFile)
        /// No handler to tell.
        case none
    }

    /// `file` is back from a write for attempt `number`.
    mutating func downloadChunkWritten(_ file: DownloadFile, attempt number: Int, monitored: Bool) -> DownloadChunkWrittenAction {
        let handlers = progressHandlers
        return updateAttempt(inFlight: number) { attempt -> DownloadChunkWrittenAction in
            attempt.received = .file(.ready(file))
            guard monitored || !handlers.isEmpty else { return .none }
            return .report(attempt.progress(completed: file.length), to: handlers)
        } ?? .discard(file)
    }

    enum DownloadedFileAction: Sendable {
        /// Kept as the attempt's file; remove the one it replaces, if any.
        case keep(replacing: DownloadFile?)
        /// A stale attempt's file: remove it.
        case remove(URL)
    }

    /// The transport finished writing attempt `number`'s body to `url`.
    mutating func transportDownloaded(to url: URL, attempt number: Int) -> DownloadedFileAction {
        updateAttempt(inFlight: number) { attempt -> DownloadedFileAction in
            var replaced: DownloadFile?
            if case .file(.ready(let previous)) = attempt.received { replaced = previous }
            attempt.received = .file(.ready(DownloadFile(finishedAt: url)))
            return .keep(replacing: replaced)
        } ?? .remove(url)
    }
}
