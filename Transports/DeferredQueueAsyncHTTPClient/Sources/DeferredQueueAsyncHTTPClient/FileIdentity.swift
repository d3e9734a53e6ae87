import DeferredQueue
import Foundation

/// Which file a path named when a body was measured (its device and
/// inode), so that the file opened to send it can be checked to be the same
/// one (``RequestConversion/openForSending(_:identity:length:changed:)``).
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// Of a file opened to be sent.
    init(_ file: HTTPBodyFile) {
        (device, inode) = (file.device, file.inode)
    }
}
