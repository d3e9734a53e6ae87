import Foundation

/// The file an upload task sends as its body, for the checks that fail an
/// upload whose file changed length.
struct UploadedFile: Sendable {
    let url: URL
    #if canImport(FoundationNetworking)
    /// What libcurl reads the file through on Linux, which announced its
    /// length (URLSession reports none for a stream).
    let reader: FileBodyReader
    var announcedLength: Int64? { reader.length }
    /// Whether the reader found the file shorter or longer than announced.
    var changedLength: Bool { reader.changedLength }
    #else
    /// `nil`: URLSession measures the file itself.
    var announcedLength: Int64? { nil }
    var changedLength: Bool { false }
    #endif
}
