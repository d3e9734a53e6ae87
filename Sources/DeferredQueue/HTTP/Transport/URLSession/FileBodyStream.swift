#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The first `length` bytes of a regular file, as a stream libcurl reads in
/// its own callback: how the URLSession transport sends a file on Linux.
///
/// corelibs reads a file body (`uploadTask(with:fromFile:)`) asynchronously,
/// pausing libcurl while a read is pending and un-pausing it when the read
/// completes; once the transfer has ended meanwhile (a cancel, a timeout, an
/// early response), that call fails and corelibs `try!`s it, which stops the
/// process. A stream is read synchronously, so nothing waits on a read.
final class FileBodyStream: InputStream {
    let reader: FileBodyReader

    init(_ reader: FileBodyReader) {
        self.reader = reader
        super.init(data: Data())
    }

    override var hasBytesAvailable: Bool { true }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        reader.read(into: buffer, maxLength: length)
    }
}

/// Reads a file opened for an upload: exactly its length when opened (the
/// length the transport announces in `Content-Length`), failing a read,
/// so that libcurl aborts at once, when the file ends before it (it shrank)
/// or goes on after it (it grew); ``changedLength`` says so.
final class FileBodyReader: Sendable {
    private struct State {
        var descriptor: Int32
        var remaining: Int64
        var changedLength = false
    }

    /// libcurl reads on one thread; the delegate asks ``changedLength``.
    private let state: Mutex<State>

    /// The length announced: the file's when it was opened.
    let length: Int64

    /// Opens `file` for reading (through a link), without blocking; the
    /// reason when it cannot be opened or is not a regular file (a FIFO
    /// would block libcurl's thread, and with it the whole session).
    static func open(_ file: URL) -> Result<FileBodyReader, URLError> {
        let descriptor = systemOpen(file.path)
        guard descriptor >= 0 else {
            return .failure(URLError(errno == ENOENT ? .fileDoesNotExist : .noPermissionsToReadFile, userInfo: [
                NSFilePathErrorKey: file.path, NSLocalizedDescriptionKey: "The file \(file.path) could not be opened to upload it.",
            ]))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            systemClose(descriptor)
            return .failure(URLError(.cannotOpenFile, userInfo: [
                NSFilePathErrorKey: file.path, NSLocalizedDescriptionKey: "\(file.path) is not a regular file; only a file's bytes are uploaded.",
            ]))
        }
        return .success(FileBodyReader(descriptor: descriptor, length: Int64(status.st_size)))
    }

    private init(descriptor: Int32, length: Int64) {
        self.length = length
        state = Mutex(State(descriptor: descriptor, remaining: length))
    }

    deinit {
        state.withLock { if $0.descriptor >= 0 { systemClose($0.descriptor) } }
    }

    /// Whether a read found the file shorter or longer than ``length``.
    var changedLength: Bool { state.withLock { $0.changedLength } }

    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        state.withLock { state in
            guard state.descriptor >= 0 else { return -1 }
            if state.remaining == 0 {
                // The announced length went out: a byte more means the file grew.
                var byte: UInt8 = 0
                let more = systemRead(state.descriptor, &byte, 1)
                if more > 0 { state.changedLength = true }
                Self.finish(&state)
                return more == 0 ? 0 : -1
            }
            let count = systemRead(state.descriptor, buffer, Int(min(Int64(length), state.remaining)))
            guard count > 0 else {
                // The file ends before its announced length: it shrank.
                if count == 0 { state.changedLength = true }
                Self.finish(&state)
                return -1
            }
            state.remaining -= Int64(count)
            return count
        }
    }

    private static func finish(_ state: inout State) {
        systemClose(state.descriptor)
        state.descriptor = -1
    }
}

// At file scope, where `open`, `close` and `read` name the C functions (Glibc's
// or Musl's, whichever is imported above), not `FileBodyReader`'s own methods.
private func systemOpen(_ path: String) -> Int32 { open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
private func systemClose(_ descriptor: Int32) { _ = close(descriptor) }
/// read(2), again when a signal interrupted it.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    while true {
        let result = read(descriptor, buffer, count)
        if result >= 0 || errno != EINTR { return result }
    }
}
#endif
