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
    /// Chunks not written yet: transports hand over 16 KiB or so at a time,
    /// and one write per chunk would cost more than the chunk takes to arrive.
    private var pending = Data()
    static let writeSize = 1 << 20

    /// A file the transport finished writing.
    init(finishedAt url: URL) {
        self.url = url
        handle = nil
    }

    /// Creates an empty temporary file.
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueue-partial-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
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

    /// Writes what is pending, closes the file and returns where it is.
    func close() throws -> URL {
        if !pending.isEmpty { try handle?.write(contentsOf: pending) }
        try handle?.close()
        return url
    }

    /// Closes and removes the file.
    func discard() {
        try? handle?.close()
        try? FileManager.default.removeItem(at: url)
    }
}
