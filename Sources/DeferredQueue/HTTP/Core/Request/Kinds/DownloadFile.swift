import Foundation

/// The temporary file one download attempt writes its body to, as it arrives.
struct DownloadFile: Sendable {
    let attempt: Int
    let url: URL
    private let handle: FileHandle
    private(set) var length: Int64 = 0

    /// Creates an empty temporary file for attempt `attempt`.
    init(attempt: Int) throws {
        self.attempt = attempt
        url = FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueue-partial-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
    }

    mutating func write(_ data: Data) throws {
        try handle.write(contentsOf: data)
        length += Int64(data.count)
    }

    /// Closes the file and returns where it is.
    func close() throws -> URL {
        try handle.close()
        return url
    }

    /// Closes and removes the file.
    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }
}
