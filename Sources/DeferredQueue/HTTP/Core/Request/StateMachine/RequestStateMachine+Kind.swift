import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RequestStateMachine {
    /// What only one kind of request has, for its whole life.
    enum Kind: Sendable {
        /// ``DataRequest``.
        case data
        /// ``UploadRequest``.
        case upload(Upload)
        /// ``DownloadRequest``: its files are per attempt (``Attempt/File``);
        /// `fileURL` is where the finished download's file was moved.
        case download(fileURL: URL?)
        /// ``DataStreamRequest``.
        case stream(Stream)

        /// Whether its attempts' bodies are kept in memory (and so may be
        /// collected by the transport).
        var keepsBodyInMemory: Bool {
            switch self {
            case .data, .upload: return true
            case .download, .stream: return false
            }
        }
    }

    struct Upload: Sendable {
        /// What every attempt sends, once prepared.
        var body = UploadBody.inRequest
        /// What was prepared, kept for `UploadRequest.uploadable` after
        /// `body` is released.
        var uploadable: UploadRequest.Uploadable?
    }

    struct Stream: Sendable {
        /// Receive every chunk, as it arrives.
        var handlers: [StreamHandler] = []
        /// Judge each response head (a stream's `validate()`).
        var headValidators: [Request.RawValidation] = []
    }

    // MARK: - Changing the payload

    /// Runs `body` on the upload payload, changed in place; `nil` for other kinds.
    @discardableResult
    mutating func updateUpload<Result>(_ body: (inout Upload) -> Result) -> Result? {
        guard case .upload(var upload) = kind else { return nil }
        kind = .data // releases the payload: `upload` is its only reference
        defer { kind = .upload(upload) }
        return body(&upload)
    }

    /// Runs `body` on the stream payload, changed in place; `nil` for other kinds.
    @discardableResult
    mutating func updateStream<Result>(_ body: (inout Stream) -> Result) -> Result? {
        guard case .stream(var stream) = kind else { return nil }
        kind = .data // releases the payload: `stream` is its only reference
        defer { kind = .stream(stream) }
        return body(&stream)
    }

    mutating func addStreamHandler(_ handler: StreamHandler) {
        updateStream { $0.handlers.append(handler) }
    }

    mutating func addHeadValidator(_ check: @escaping Request.RawValidation) {
        updateStream { $0.headValidators.append(check) }
    }

    /// The upload's encoded form file, taken so that it is removed once.
    /// An upload's body is dropped (its redirect became a bodyless GET); the
    /// form's temporary file, if it had one, to remove after the lock.
    mutating func dropUploadBody() -> URL? {
        updateUpload { upload -> URL? in
            defer { upload.body = .inRequest }
            if case .temporaryFile(let file) = upload.body { return file }
            return nil
        } ?? nil
    }

    mutating func takeTemporaryFile() -> URL? {
        updateUpload { upload -> URL? in
            guard case .temporaryFile(let file) = upload.body else { return nil }
            upload.body = .inRequest
            return file
        } ?? nil
    }
}

/// What an upload sends as the body of every attempt, once prepared.
enum UploadBody: Sendable {
    /// `urlRequest.httpBody`, as built.
    case inRequest
    /// A caller's file, streamed.
    case file(URL)
    /// A form encoded to a file of ours, streamed and removed before the handlers run.
    case temporaryFile(URL)
    /// Bytes in memory: an upload's data, or a form encoded in memory; set
    /// as each attempt's body.
    case encoded(Data)
}
