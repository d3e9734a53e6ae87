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
        /// `nil` once the read that ends the body closed it.
        var handle: FileHandle?
        var remaining: Int64
        var changedLength = false
    }

    /// libcurl reads on one thread; the delegate asks ``changedLength``.
    private let state: Mutex<State>

    /// The length announced: the file's when it was opened.
    let length: Int64

    /// Opens `file` (``HTTPBodyFile/open(_:)``: a FIFO would block
    /// libcurl's thread, and with it the whole session).
    static func open(_ file: URL) -> Result<FileBodyReader, URLError> {
        Result { () throws(URLError) in FileBodyReader(try HTTPBodyFile.open(file)) }
    }

    private init(_ file: HTTPBodyFile) {
        length = file.length
        state = Mutex(State(handle: file.handle, remaining: file.length))
    }

    /// Whether a read found the file shorter or longer than ``length``.
    var changedLength: Bool { state.withLock { $0.changedLength } }

    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        state.withLock { state in
            guard let descriptor = state.handle?.fileDescriptor else { return -1 }
            if state.remaining == 0 {
                // The announced length went out: a byte more means the file grew.
                var byte: UInt8 = 0
                let more = systemRead(descriptor, &byte, 1)
                if more > 0 { state.changedLength = true }
                Self.finish(&state)
                return more == 0 ? 0 : -1
            }
            let count = systemRead(descriptor, buffer, Int(min(Int64(length), state.remaining)))
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
        try? state.handle?.close()
        state.handle = nil
    }
}

// At file scope, where `read` names the C function (Glibc's or Musl's,
// whichever is imported above), not `FileBodyReader`'s own method.
/// read(2), again when a signal interrupted it.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    while true {
        let result = read(descriptor, buffer, count)
        if result >= 0 || errno != EINTR { return result }
    }
}
#endif
