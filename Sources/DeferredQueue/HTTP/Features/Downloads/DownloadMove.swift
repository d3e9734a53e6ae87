#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Moves a finished download to its destination, whoever chose it (the
/// suggested destination or a caller's closure reading the response), so
/// that what is already on the disk stays safe:
///
/// - the destination's path has no `.` or `..` component: the file lands in
///   the directory the path names, never above it;
/// - the file is renamed into place, which replaces a directory entry and
///   never writes through it: a symbolic link planted at the destination is
///   not followed (and is refused, not removed);
/// - ``DownloadRequest/Options/removePreviousFile`` replaces one regular
///   file: never a directory, a link or a special file.
///
/// `FileManager.moveItem` does none of this: it follows a link at the
/// destination when it copies across file systems, and `removeItem`, which
/// the option used before, deletes a directory with everything in it.
enum DownloadMove {
    typealias Refusal = DownloadRequest.DestinationError

    /// Moves `source` to `destination`.
    ///
    /// - Throws: ``DownloadRequest/DestinationError`` for a destination it
    ///   refuses, otherwise the file system's error.
    static func move(_ source: URL, to destination: URL, options: DownloadRequest.Options) throws {
        let path = try checkedPath(of: destination)
        let directory = destination.deletingLastPathComponent()
        if options.contains(.createIntermediateDirectories) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        try checkEntry(at: path, destination: destination, options: options)
        if rename(source.path, path) == 0 { return }
        guard errno == EXDEV else { throw fileSystemError(at: destination) }
        // Another file system: copy next to the destination under a name
        // nobody can predict, then rename that into place.
        let sibling = directory.appendingPathComponent(".DeferredQueue-\(UUID().uuidString).part")
        do {
            try FileManager.default.copyItem(at: source, to: sibling)
            try checkEntry(at: path, destination: destination, options: options)
            guard rename(sibling.path, path) == 0 else { throw fileSystemError(at: destination) }
        } catch {
            try? FileManager.default.removeItem(at: sibling)
            throw error
        }
        try? FileManager.default.removeItem(at: source)
    }

    /// The destination's path, once it is known to stay in its directory.
    private static func checkedPath(of destination: URL) throws -> String {
        guard destination.isFileURL else { throw Refusal.notAFileURL(destination) }
        let path = destination.path
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard path.hasPrefix("/"), let name = components.last, !name.isEmpty else {
            throw Refusal.notAFileURL(destination)
        }
        if path.utf8.contains(0) || components.contains(where: { $0 == "." || $0 == ".." }) {
            throw Refusal.escapingPathComponent(destination)
        }
        return path
    }

    /// Refuses what must not be replaced at `path` (without following a
    /// link there); a regular file passes only with `.removePreviousFile`.
    private static func checkEntry(at path: String, destination: URL, options: DownloadRequest.Options) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw fileSystemError(at: destination)
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            if !options.contains(.removePreviousFile) { throw Refusal.fileExists(destination) }
        case S_IFLNK:
            throw Refusal.symbolicLinkAtDestination(destination)
        case S_IFDIR:
            throw Refusal.directoryAtDestination(destination)
        default:
            throw Refusal.specialFileAtDestination(destination)
        }
    }

    /// `errno` as `FileManager.moveItem` reports it (Alamofire moves with
    /// it): a `CocoaError` for the common failures, the POSIX error beneath.
    private static func fileSystemError(at destination: URL) -> any Error {
        let posix = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        let code: CocoaError.Code
        switch posix.code {
        case .ENOENT, .ENOTDIR: code = .fileNoSuchFile
        case .EEXIST: code = .fileWriteFileExists
        case .EACCES, .EPERM: code = .fileWriteNoPermission
        case .ENOSPC, .EDQUOT: code = .fileWriteOutOfSpace
        case .EROFS: code = .fileWriteVolumeReadOnly
        default: return posix
        }
        return CocoaError(code, userInfo: [NSFilePathErrorKey: destination.path, NSUnderlyingErrorKey: posix])
    }
}
