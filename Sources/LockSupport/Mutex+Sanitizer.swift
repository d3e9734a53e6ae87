#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, made visible to ThreadSanitizer.
    ///
    /// On Linux, `Synchronization.Mutex` synchronises inside the (not
    /// instrumented) standard library, so `swift test --sanitize=thread`
    /// reports a "Swift access race" on every contended `withLock` — checked on
    /// Swift 6.3.1 with four threads appending to a `Mutex<[Int]>`. Inside the
    /// critical section this tells the sanitizer, when it is loaded, that the
    /// section acquires and releases `owner`'s address: exactly the ordering
    /// the mutex really provides. Without the sanitizer the cost is one load
    /// and a nil check.
    ///
    /// - Parameters:
    ///   - owner: The object that holds this mutex (its address names the lock).
    ///   - body: The critical section.
    ///
    /// Inlinable, so that generic callers (`Deferred<Value>`) specialised in a
    /// client module need no run-time metadata lookups to take the lock.
    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        owner: AnyObject,
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        guard !ThreadSanitizer.isKnownAbsent, let annotations = ThreadSanitizer.annotations else {
            return try withLock { (value: inout sending Value) throws(E) -> sending Result in
                try body(&value)
            }
        }
        let address = UnsafeRawPointer(Unmanaged.passUnretained(owner).toOpaque())
        return try withLock { (value: inout sending Value) throws(E) -> sending Result in
            annotations.acquire(address)
            defer { annotations.release(address) }
            return try body(&value)
        }
    }
}

/// The ThreadSanitizer annotation entry points, found at run time: present
/// only in a process built with `-sanitize=thread`.
@usableFromInline
package enum ThreadSanitizer {
    @usableFromInline
    package typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void

    /// `__tsan_acquire` and `__tsan_release`, or `nil` without the
    /// sanitizer. One lazy global rather than one per function: each read
    /// of a lazy global goes through `swift_once`, so two would pay that
    /// check twice in every critical section.
    @usableFromInline
    package static let annotations: (acquire: Annotation, release: Annotation)? = {
        guard let acquire = lookUp("__tsan_acquire"), let release = lookUp("__tsan_release") else {
            threadSanitizerAbsent.store(true, ordering: .relaxed)
            return nil
        }
        return (acquire, release)
    }()

    /// `true` once `annotations` was found to be `nil`: one load of a
    /// statically initialised global, where reading `annotations` costs a
    /// call and a `swift_once` check in every critical section. `false`
    /// until then, and always with the sanitizer, so callers then read
    /// `annotations`.
    @inlinable
    package static var isKnownAbsent: Bool {
        threadSanitizerAbsent.load(ordering: .relaxed)
    }

    private static func lookUp(_ name: String) -> Annotation? {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2) // RTLD_DEFAULT
        #else
        let handle: UnsafeMutableRawPointer? = nil // RTLD_DEFAULT
        #endif
        return dlsym(handle, name).map { unsafeBitCast($0, to: Annotation.self) }
    }
}

/// Backs ``ThreadSanitizer/isKnownAbsent``. A global with a constant
/// initial value is laid out statically: no `swift_once` to read it.
@usableFromInline
package let threadSanitizerAbsent = Atomic<Bool>(false)
