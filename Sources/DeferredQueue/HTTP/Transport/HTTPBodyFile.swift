import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A request body's file (``HTTPTransportAttempt/bodyFile``) opened to be
/// sent: the file a transport reads the bytes from, and its length and
/// identity as the open descriptor gives them.
///
/// Read the body from ``handle``, never from the path again: whatever the
/// path names later (another file moved or linked there), what is sent is
/// this file's bytes. Send exactly ``length`` bytes and fail the attempt with
/// ``HTTPTransportAttempt/bodyFileChangedLength(_:announced:url:)`` when the
/// file ends before that or goes on after it.
public struct HTTPBodyFile: Sendable {
    /// The open file; closed when the last reference to it goes, or by `close()`.
    public let handle: FileHandle
    /// The file's length when it was opened: the `Content-Length` to announce.
    public let length: Int64
    /// The file's device number, with ``inode`` what tells it apart from
    /// any other file: compare them with what was measured by path earlier.
    public let device: UInt64
    /// The file's inode number on ``device``.
    public let inode: UInt64

    /// Opens `file` to send it: for reading, through a symbolic link,
    /// without blocking and never as a controlling terminal, then checked
    /// through the descriptor to be a regular file. (Opening a FIFO would
    /// block the opening thread until something writes to it, a transport's
    /// event loop or libcurl's thread, and with it every other request.)
    ///
    /// - Throws: `URLError.fileDoesNotExist` when there is no such file,
    ///   `.noPermissionsToReadFile` when it cannot be opened otherwise, and
    ///   ``notRegularFile(_:)``'s error for a directory, a device or a FIFO,
    ///   each naming the file in `NSFilePathErrorKey`.
    public static func open(_ file: URL) throws(URLError) -> HTTPBodyFile {
        let descriptor = systemOpen(file.path)
        guard descriptor >= 0 else {
            let code: URLError.Code = errno == ENOENT ? .fileDoesNotExist : .noPermissionsToReadFile
            let reason = String(cString: strerror(errno))
            throw URLError(code, userInfo: [
                NSFilePathErrorKey: file.path,
                NSLocalizedDescriptionKey: "\(file.path) could not be opened to be uploaded: \(reason).",
            ])
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw notRegularFile(file) }
        return HTTPBodyFile(
            handle: handle, length: Int64(status.st_size), device: UInt64(truncatingIfNeeded: status.st_dev), inode: UInt64(truncatingIfNeeded: status.st_ino)
        )
    }

    /// The error for a body `file` that is not a regular file: only a
    /// file's bytes are sent (a transport that checks a file when it
    /// measures it, before opening it, fails with this one too).
    public static func notRegularFile(_ file: URL) -> URLError {
        URLError(.cannotOpenFile, userInfo: [
            NSFilePathErrorKey: file.path,
            NSLocalizedDescriptionKey: "\(file.path) is not a regular file; only a file's bytes are uploaded.",
        ])
    }
}

// At file scope, where `open` names the C function, not `HTTPBodyFile.open`.
private func systemOpen(_ path: String) -> Int32 { open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
