#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which sanitizer runtime the test process carries.
///
/// Under `swift test --sanitize=…` code runs several times slower and the
/// sanitizer's allocator keeps freed memory, so stress tests scale down
/// (``scale(_:sanitized:)``) and resident-memory figures
/// (``ResidentMemory``) are printed but not judged.
public enum Sanitizers {
    /// `swift test --sanitize=thread`: the runtime's annotation entry point exists.
    public static let thread = has("__tsan_acquire")

    /// `swift test --sanitize=address`: the runtime's init symbol exists.
    public static let address = has("__asan_init")

    /// Either of them.
    public static var any: Bool { thread || address }

    /// `full` in a plain run, `sanitized` under a sanitizer.
    public static func scale(_ full: Int, sanitized: Int) -> Int {
        any ? sanitized : full
    }

    /// A name for test output.
    public static var description: String {
        thread ? "ThreadSanitizer" : address ? "AddressSanitizer" : "no sanitizer"
    }

    private static func has(_ symbol: String) -> Bool {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(handle, symbol) != nil
    }
}
