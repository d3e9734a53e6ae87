import Foundation

extension MultipartFormData {
    /// A form encoded for an upload: in memory, or in a temporary file the upload streams from.
    enum UploadBody: Sendable, Equatable {
        case data(Data)
        /// A new file holding the encoded form; whoever sends it removes it when the request ends.
        case file(URL)
    }

    /// Encodes the form the way `Session.upload(multipartFormData:…)` sends it: in memory when
    /// its ``contentLength`` is at most `threshold`, otherwise into a new file in
    /// `directory`, so that memory stays flat for forms holding big files.
    ///
    /// - Parameters:
    ///   - threshold: The largest form encoded in memory; ``encodingMemoryThreshold`` by default.
    ///   - directory: Where the temporary file goes; the file manager's temporary directory by default.
    /// - Returns: The encoded body.
    /// - Throws: What ``encode()`` or ``writeEncodedData(to:)`` throws.
    func encodedForUpload(
        threshold: UInt64 = encodingMemoryThreshold, in directory: URL? = nil, streamLimit: Int = .max,
        isCancelled: () -> Bool = { false }
    ) throws -> UploadBody {
        // Stream parts are read whole, as an `InputStream` upload is: the
        // same limit, so that one that never ends cannot fill the disk.
        if declaredStreamLength > UInt64(max(0, streamLimit)) {
            throw HTTPError.createUploadableFailed(error: UploadStream.Failure.tooLarge(limit: streamLimit))
        }
        guard contentLength > threshold else { return .data(try encode()) }
        let directory = directory ?? fileManager.temporaryDirectory
        let fileURL = directory.appendingPathComponent("deferredqueue.multipart.\(UUID().uuidString)")
        try writeEncodedData(to: fileURL, isCancelled: isCancelled)
        return .file(fileURL)
    }
}
