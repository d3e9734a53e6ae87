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
