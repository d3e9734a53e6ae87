import Foundation
import LoopbackServer

/// Writes `length` bytes of the server's test pattern to a new temporary file.
public func patternFile(length: Int64) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueueTests-upload-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var offset: Int64 = 0
    while offset < length {
        let end = min(length, offset + (4 << 20))
        try handle.write(contentsOf: GeneratedContent.pattern.bytes(in: offset..<end))
        offset = end
    }
    return url
}

/// A new, empty temporary directory, removed with everything in it when
/// the value goes away.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueueTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
