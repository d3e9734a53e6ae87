import Dispatch

/// A progress handler and the queue it runs on.
struct ProgressHandler: Sendable {
    let queue: DispatchQueue
    let handler: @Sendable (TransferProgress) -> Void
}
