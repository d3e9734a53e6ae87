/// An error that can say it stands for a cancellation rather than a failure.
///
/// ``Deferred/catch(on:policy:_:)`` with ``CatchPolicy/allErrorsExceptCancellation``
/// and ``Deferred/retry(attempts:delay:backoff:maximumDelay:when:_:)`` treat
/// an error as a cancellation when it is one of:
///
/// * ``DeferredError/cancelled``;
/// * Swift concurrency's `CancellationError`;
/// * any error conforming to this protocol whose ``isCancelled`` is `true`.
///
/// Nothing else counts: a timeout (``DeferredError/timedOut``), an abandoned
/// deferred or an error that merely wraps a cancellation is a failure. Conform
/// your own error type when one of its cases means "the user gave up":
///
/// ```swift
/// enum DownloadError: CancellableError {
///     case stopped, corrupt
///     var isCancelled: Bool { self == .stopped }
/// }
/// ```
public protocol CancellableError: Error {
    /// `true` when this error reports a cancellation.
    var isCancelled: Bool { get }
}

extension Error {
    /// `true` when this error counts as a cancellation (see ``CancellableError``).
    var isCancellation: Bool {
        if let error = self as? any CancellableError { return error.isCancelled }
        return self is CancellationError
    }
}
