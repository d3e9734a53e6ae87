import Foundation

/// The body of an `InputStream` upload.
///
/// A stream can be read once, and its length is unknown until it ends; an
/// upload is sent again by retries, redirects and authentication round
/// trips, and a body of known length travels on every transport. So when
/// the request starts, the stream is copied once, in chunks (memory stays
/// flat), to a new temporary file that every attempt sends, and that is
/// removed before the handlers run (a copy cut short by a cancel, as the
/// copy stops, at the next chunk). A stream that never ends
/// cannot fill the disk: the copy stops at a limit (the session's
/// ``Session/maximumStreamedBodySize``), and as soon as the request is cancelled.
struct UploadStream: Sendable {
    let source: MultipartBodyPart.HandedOverStream
    /// Where the temporary file goes.
    let fileManager: FileManager

    init(_ stream: sending InputStream, fileManager: FileManager) {
        source = MultipartBodyPart.HandedOverStream(stream)
        self.fileManager = fileManager
    }

    /// Why a stream could not become an upload's body.
    enum Failure: Error, Sendable, CustomStringConvertible {
        /// The stream was handed to an upload that already read it.
        case alreadyRead
        /// The stream reported an error.
        case readFailed(any Error)
        /// The temporary file could not be created or written.
        case spoolFailed(any Error)
        /// The stream had more than `limit` bytes.
        case tooLarge(limit: Int)
        /// The request was cancelled while the stream was copied.
        case cancelled

        var description: String {
            switch self {
            case .alreadyRead: return "the stream was read already (a stream is sent once)"
            case .readFailed(let error): return "the stream failed: \(error)"
            case .spoolFailed(let error): return "its temporary copy could not be written: \(error)"
            case .tooLarge(let limit):
                return "the stream had more than \(limit) bytes (the session's maximumStreamedBodySize), so it was not sent"
            case .cancelled: return "the request was cancelled while the stream was copied"
            }
        }
    }

    static let chunkSize = 64 * 1024

    /// Copies the stream to a new temporary file, opening and closing it.
    /// - Parameters:
    ///   - limit: The most bytes copied; a longer stream fails.
    ///   - isCancelled: Asked before each chunk: `true` stops the copy.
    ///   - read: Given the stream once it was read and closed, copied or not.
    /// - Returns: The file, which the caller removes.
    /// - Throws: ``HTTPError/createUploadableFailed(error:)`` with a ``Failure``.
    func spool(limit: Int, isCancelled: () -> Bool, read: (InputStream) -> Void) throws(HTTPError) -> URL {
        guard let stream = source.stream.withLock(owner: source, { $0.take() }) else {
            throw .createUploadableFailed(error: Failure.alreadyRead)
        }
        let file = fileManager.temporaryDirectory.appendingPathComponent("DeferredQueue-upload-\(UUID().uuidString)")
        guard fileManager.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw .createUploadableFailed(error: Failure.spoolFailed(CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])))
        }
        do {
            defer { read(stream) }
            try copy(stream, to: file, limit: limit, isCancelled: isCancelled)
            return file
        } catch {
            try? fileManager.removeItem(at: file)
            throw .createUploadableFailed(error: error)
        }
    }

    private func copy(_ stream: InputStream, to file: URL, limit: Int, isCancelled: () -> Bool) throws(Failure) {
        let output: FileHandle
        do { output = try FileHandle(forWritingTo: file) } catch { throw .spoolFailed(error) }
        defer { try? output.close() }
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        var copied = 0
        while true {
            if isCancelled() { throw .cancelled }
            let count = buffer.withUnsafeMutableBufferPointer { bytes in
                bytes.baseAddress.map { stream.read($0, maxLength: Self.chunkSize) } ?? -1
            }
            if count < 0 { throw .readFailed(stream.readFailure) }
            if count == 0 { return }
            copied += count
            if copied > limit { throw .tooLarge(limit: limit) }
            do { try output.write(contentsOf: Data(buffer[0..<count])) } catch { throw .spoolFailed(error) }
        }
    }
}
