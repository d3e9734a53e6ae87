import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The process's resident set size, for tests that check memory stays flat
/// and report figures (never timings). Lives beside ``MemoryHeavyWork``, in the testing product.
public enum ResidentMemory {
    /// Resident memory in MiB, from the second field of `/proc/self/statm`
    /// (pages); `nil` where that file does not exist.
    public static func mebibytes() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        #if canImport(Glibc)
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        #else
        let pageSize = 4096.0
        #endif
        return pages * pageSize / 1_048_576
    }

    /// Hands freed heap pages back to the system, so resident memory shows
    /// what is still in use rather than what malloc keeps cached.
    public static func trim() {
        _ = mallocTrim?(0)
    }

    /// glibc's `malloc_trim`, looked up at run time (the Glibc module does not export it).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        return dlsym(nil, "malloc_trim").map { unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self) }
        #else
        return nil
        #endif
    }()
}
