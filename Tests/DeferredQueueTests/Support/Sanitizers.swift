#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which sanitizer runtime this test process carries, so the heaviest stress
/// tests can scale down under `--sanitize=…` (the plain run always does the
/// full size).
enum Sanitizers {
    /// `swift test --sanitize=thread`: the runtime's annotation entry point exists.
    static let thread: Bool = {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2) // RTLD_DEFAULT
        #else
        let handle: UnsafeMutableRawPointer? = nil // RTLD_DEFAULT
        #endif
        return dlsym(handle, "__tsan_acquire") != nil
    }()

    /// `swift test --sanitize=address`: the runtime's init symbol exists.
    static let address: Bool = {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2) // RTLD_DEFAULT
        #else
        let handle: UnsafeMutableRawPointer? = nil // RTLD_DEFAULT
        #endif
        return dlsym(handle, "__asan_init") != nil
    }()

    /// Either of them: code runs several times slower.
    static var any: Bool { thread || address }

    /// `full` in a plain run, `sanitized` under a sanitizer.
    static func scale(_ full: Int, sanitized: Int) -> Int {
        any ? sanitized : full
    }

    /// A name for test output.
    static var description: String {
        thread ? "ThreadSanitizer" : address ? "AddressSanitizer" : "no sanitizer"
    }
}
