import Foundation

/// Which file a path named when a body was measured (its device and
/// inode), so that the file opened to send it can be checked to be the same
/// one (``RequestConversion/openForSending(_:identity:length:changed:)``).
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// From `FileManager`'s attributes of the file; `nil` where they lack either number.
    init?(_ attributes: [FileAttributeKey: Any]) {
        guard let device = (attributes[.systemNumber] as? NSNumber)?.uint64Value,
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        else { return nil }
        (self.device, self.inode) = (device, inode)
    }

    /// From the status of an open descriptor.
    init(_ status: stat) {
        (device, inode) = (UInt64(status.st_dev), UInt64(status.st_ino))
    }
}
