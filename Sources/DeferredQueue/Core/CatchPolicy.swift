/// Which rejections ``Deferred/catch(on:policy:_:)`` hands to its handler.
public enum CatchPolicy: Sendable {
    /// Every rejection, cancellations included (what ``Deferred/catch(on:_:)`` does).
    case allErrors
    /// Every rejection except a cancellation: ``DeferredError/cancelled``,
    /// `CancellationError`, or a ``CancellableError`` whose `isCancelled` is
    /// `true`. A user who cancelled usually wants no error report.
    case allErrorsExceptCancellation

    /// Whether a handler under this policy is called for `error`.
    @usableFromInline
    func admits(_ error: any Error) -> Bool {
        switch self {
        case .allErrors: return true
        case .allErrorsExceptCancellation: return !error.isCancellation
        }
    }
}
