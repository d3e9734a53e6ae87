import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Data {
    /// The bytes of the file at `url`, as `Data(contentsOf:)` reads them —
    /// except that an empty regular file is answered without reading it:
    /// Foundation on Linux leaks the 4 KiB buffer it allocates to read one
    /// (every empty download serialized would leak it). A file of the kernel's
    /// that reports a size of 0 but has contents (`/proc`) reads as empty.
    ///
    /// - Throws: What `Data(contentsOf:)` throws.
    init(readingFile url: URL) throws {
        var info = stat()
        if url.isFileURL, stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 {
            self.init()
            return
        }
        try self.init(contentsOf: url)
    }
}
