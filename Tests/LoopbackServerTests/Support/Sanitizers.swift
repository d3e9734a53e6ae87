#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this test process runs under a sanitizer, whose allocator keeps
/// freed memory: resident-memory figures are then printed but not judged.
enum Sanitizers {
    private static func has(_ symbol: String) -> Bool {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2) // RTLD_DEFAULT
        #else
        let handle: UnsafeMutableRawPointer? = nil // RTLD_DEFAULT
        #endif
        return dlsym(handle, symbol) != nil
    }

    /// ThreadSanitizer or AddressSanitizer is loaded.
    static let any = has("__tsan_acquire") || has("__asan_init")
}
