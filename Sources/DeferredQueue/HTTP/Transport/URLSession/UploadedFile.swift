import Foundation

/// The file an upload task sends as its body, and the length announced for
/// it, for the checks that fail an upload whose file changed length.
struct UploadedFile: Sendable {
    let url: URL
    /// The length the transport announced when it sends the file as a
    /// stream (``FileBodyStream``, on Linux), for which URLSession reports
    /// no length; `nil` where URLSession measures the file itself.
    let announcedLength: Int64?
}
