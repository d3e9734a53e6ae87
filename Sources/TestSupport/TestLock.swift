import LockSupport
import Synchronization

extension Mutex where Value: ~Copyable {
    /// The lock of the test helpers: LockSupport's `withLock(owner:)`, which
    /// ThreadSanitizer can see (a plain `Mutex.withLock` it cannot), for test
    /// code outside this package, which cannot import LockSupport.
    public borrowing func testLock<Result: ~Copyable>(
        owner: AnyObject,
        _ body: (inout sending Value) -> sending Result
    ) -> sending Result {
        withLock(owner: owner, body)
    }
}
