#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A failure to set up a ``LoopbackServer`` (or to find an unused port).
///
/// Carries the POSIX call that failed and its `errno`, so a test log says what
/// went wrong, for example `bind(127.0.0.1) failed: Address already in use (errno 98)`.
public struct LoopbackServerError: Error, Sendable, CustomStringConvertible {
    /// The system call (and its argument, where useful) that failed.
    public let operation: String
    /// The `errno` value the call left, or 0 when the failure was not a system error.
    public let errorNumber: Int32

    /// Creates an error for `operation` with the given `errno` value.
    public init(operation: String, errorNumber: Int32) {
        self.operation = operation
        self.errorNumber = errorNumber
    }

    /// Captures the current `errno` for `operation`.
    static func system(_ operation: String) -> LoopbackServerError {
        LoopbackServerError(operation: operation, errorNumber: errno)
    }

    /// What failed and why, with the system's text for the `errno` value.
    public var description: String {
        guard errorNumber != 0 else { return "LoopbackServer: \(operation) failed" }
        let text = strerror(errorNumber).map { String(cString: $0) } ?? "unknown error"
        return "LoopbackServer: \(operation) failed: \(text) (errno \(errorNumber))"
    }
}
