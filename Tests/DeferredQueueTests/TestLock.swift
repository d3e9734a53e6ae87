import LockSupport
import Synchronization

extension Mutex where Value: ~Copyable {
    /// The lock of the shared test helpers (`Support/`): LockSupport's
    /// `withLock(owner:)`, visible to ThreadSanitizer, in this target. The
    /// `Transports/DeferredQueueAsyncHTTPClient` test target, which compiles the same
    /// helpers but cannot see this package-internal module, defines it with
    /// a plain `withLock`.
    borrowing func testLock<Result: ~Copyable>(
        owner: AnyObject,
        _ body: (inout sending Value) -> sending Result
    ) -> sending Result {
        withLock(owner: owner, body)
    }
}
