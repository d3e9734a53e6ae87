import Synchronization

extension Mutex where Value: ~Copyable {
    /// The lock of the shared test helpers (`Support/`). The root test target
    /// defines it with the package-internal LockSupport's ThreadSanitizer-visible
    /// `withLock(owner:)`; this package cannot import that module, and runs no
    /// sanitizer in CI, so a plain `withLock` does.
    borrowing func testLock<Result: ~Copyable>(
        owner: AnyObject,
        _ body: (inout sending Value) -> sending Result
    ) -> sending Result {
        withLock(body)
    }
}
