import CDeferredQueueHeap

/// The heap in use, as the C library's allocator counts it: what the process
/// has allocated and not freed.
///
/// Resident memory also counts the pages the allocator keeps for later; in a
/// process with many threads glibc spreads those over up to eight arenas per
/// core, and a transfer that reuses freed chunks all over them touches pages
/// a trim had handed back. The heap in use is what the code under test
/// holds, however the allocator lays it out.
public enum HeapMemory {
    /// The heap in use in MiB; `nil` where the C library does not say.
    public static func mebibytes() -> Double? {
        let bytes = cdq_heap_bytes_in_use()
        return bytes == 0 ? nil : Double(bytes) / 1_048_576
    }
}
