import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's resident memory, for the bytes-per-pending-task benchmark.
public enum ResidentMemory {
    /// Resident bytes now: the second field of `/proc/self/statm` times the
    /// page size (Linux); `0` where that file does not exist.
    public static func bytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Measures the resident bytes that `count` live items cost.
    ///
    /// `build` creates the items and stores them in the memory it is given
    /// (already allocated and touched, so the slots themselves are not
    /// counted); the difference in resident bytes before and after, divided
    /// by `count`, is returned. `release` then settles and frees them.
    public static func bytesPerItem<Item>(
        count: Int,
        build: (Int) -> Item,
        release: (UnsafeMutableBufferPointer<Item?>) -> Void
    ) -> Int {
        let slots = UnsafeMutableBufferPointer<Item?>.allocate(capacity: count)
        slots.initialize(repeating: nil)
        defer {
            _ = slots.deinitialize()
            slots.deallocate()
        }
        let before = bytes()
        for index in 0..<count {
            slots[index] = build(index)
        }
        let after = bytes()
        release(slots)
        return (after - before) / count
    }
}
