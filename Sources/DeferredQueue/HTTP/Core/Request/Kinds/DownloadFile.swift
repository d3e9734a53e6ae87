import Foundation

/// The temporary file one download attempt writes its body to, as it
/// arrives — or that the transport wrote and handed over.
///
/// Its I/O runs outside the request's lock: the state machine hands the file
/// out for each write and takes it back after (see ``RequestStateMachine/File``).
struct DownloadFile: Sendable {
    let url: URL
    /// `nil` for a file the transport wrote.
    private let handle: FileHandle?
    private(set) var length: Int64 = 0
    /// The length a resumed file must reach: the end of the range the
    /// server said it sends; -1 for a new file. (Not an optional: it would
    /// cost every request's state-machine copies an enum tag.)
    let expectedLength: Int64
    /// Chunks not written yet: transports hand over 16 KiB or so at a time,
    /// and one write per chunk would cost more than the chunk takes to arrive.
    private var pending = Data()
    static let writeSize = 1 << 20

    /// A file the transport finished writing.
    init(finishedAt url: URL) {
        self.url = url
        handle = nil
        expectedLength = -1
    }

    /// Creates an empty temporary file, readable and writable by its owner
    /// only: the shared temporary directory is everyone's, and the file is
    /// moved, mode and all, to the download's destination.
    init() throws {
        url = Self.newPartialName(in: FileManager.default.temporaryDirectory)
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
        expectedLength = -1
    }

    /// The partial file of a resumed download, cut to its first `offset`
    /// bytes and opened to write the rest after them, up to `expectedLength`.
    ///
    /// The file is first claimed: renamed to a name of this download's own.
    /// Two downloads resumed from one resume data at once would otherwise
    /// both write the one file (the later one cutting what the first had
    /// written since), and the first to finish would move it away from under
    /// the other. A rename happens once: the loser finds the file gone.
    init(resuming partial: URL, at offset: Int64, expecting expectedLength: Int64) throws {
        let claimed = try Self.claim(partial)
        url = claimed
        self.expectedLength = expectedLength
        let handle: FileHandle
        do {
            handle = try Self.openPartialFile(claimed, named: partial)
        } catch {
            // The name only (a link's, never what it points to; never a directory's contents).
            unlink(claimed.path)
            throw error
        }
        do {
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seekToEnd()
        } catch {
            try? handle.close()
            unlink(claimed.path)
            throw error
        }
        self.handle = handle
        length = offset
    }

    /// A name no other partial file has, in `directory`.
    private static func newPartialName(in directory: URL) -> URL {
        directory.appendingPathComponent("DeferredQueue-partial-\(UUID().uuidString)", isDirectory: false)
    }

    /// Renames `partial` to a new name beside it (the same directory, so
    /// the same file system, and the rename is atomic).
    private static func claim(_ partial: URL) throws -> URL {
        let claimed = newPartialName(in: partial.deletingLastPathComponent())
        guard rename(partial.path, claimed.path) != 0 else { return claimed }
        let code = errno
        if code == ENOENT {
            throw CocoaError(.fileNoSuchFile, userInfo: [
                NSFilePathErrorKey: partial.path,
                NSLocalizedDescriptionKey: "the partial file \(partial.path) is gone: another download resumed from the same "
                    + "resume data, or the temporary directory was cleaned, after this request was made",
            ])
        }
        throw CocoaError(.fileWriteNoPermission, userInfo: [
            NSFilePathErrorKey: partial.path,
            NSLocalizedDescriptionKey: "the partial file \(partial.path) could not be taken over: \(String(cString: strerror(code)))",
        ])
    }

    /// Opens a partial file to write, refusing a symbolic link, a file with
    /// another name (a hard link) and another user's file: the name sits in
    /// the shared temporary directory, and what is there when the response
    /// arrives need not be what was checked when the request was made.
    private static func openPartialFile(_ url: URL, named partial: URL) throws -> FileHandle {
        let descriptor = open(url.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
              status.st_nlink == 1, status.st_uid == geteuid()
        else {
            if descriptor >= 0 { try? FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).close() }
            throw CocoaError(.fileWriteNoPermission, userInfo: [
                NSFilePathErrorKey: partial.path,
                NSLocalizedDescriptionKey: "the partial file \(partial.path) is not a regular file of this user's with one name",
            ])
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    mutating func write(_ data: Data) throws {
        pending.append(data)
        length += Int64(data.count)
        if pending.count >= Self.writeSize { try flush() }
    }

    private mutating func flush() throws {
        guard !pending.isEmpty else { return }
        try handle?.write(contentsOf: pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Whether the session wrote this file (a transport's finished file has
    /// no partial state worth resuming from).
    var isWrittenHere: Bool { handle != nil }

    /// Writes what is pending, closes the file and returns where it is.
    func close() throws -> URL {
        if !pending.isEmpty { try handle?.write(contentsOf: pending) }
        try handle?.close()
        return url
    }

    /// Writes what is pending, closes the file and moves it to a new partial
    /// file in the temporary directory; returns the new file's name.
    func keepForResuming() throws -> String {
        let name = DownloadResumeData.partialFilePrefix + UUID().uuidString
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: false)
        _ = try close()
        if url != kept { try FileManager.default.moveItem(at: url, to: kept) }
        return name
    }

    /// Closes and removes the file.
    func discard() {
        try? handle?.close()
        try? FileManager.default.removeItem(at: url)
    }
}
