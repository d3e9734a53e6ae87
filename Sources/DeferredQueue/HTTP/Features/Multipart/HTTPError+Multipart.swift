import Foundation

extension HTTPError {
    /// Why a ``MultipartFormData`` could not be encoded.
    ///
    /// Reached through ``HTTPError/multipartEncodingFailed(reason:)``. A problem found while
    /// appending (a file that does not exist, say) is remembered and thrown by the first
    /// ``MultipartFormData/encode()`` or ``MultipartFormData/writeEncodedData(to:)``, so
    /// `append` itself never throws:
    ///
    /// ```swift
    /// let form = MultipartFormData()
    /// form.append(URL(fileURLWithPath: "/tmp/missing.png"), withName: "avatar")
    /// do {
    ///     _ = try form.encode()
    /// } catch HTTPError.multipartEncodingFailed(let reason) {
    ///     print(reason)   // "The file /tmp/missing.png of a multipart body part does not exist. …"
    /// }
    /// ```
    public enum MultipartEncodingFailureReason: Sendable, CustomStringConvertible {
        /// The boundary given to ``MultipartFormData/init(fileManager:boundary:)`` is not a valid
        /// multipart boundary (1 to 70 characters from RFC 2046's set, not ending in a space).
        case boundaryInvalid(String)
        /// A part's MIME type is empty or contains a control character (a line break would
        /// inject a header).
        case bodyPartMIMETypeInvalid(String)
        /// The URL given for a file part is not a `file:` URL.
        case bodyPartURLInvalid(url: URL)
        /// The file URL has no last path component to use as the part's file name.
        case bodyPartFilenameInvalid(in: URL)
        /// Nothing exists at the file URL.
        case bodyPartFileNotReachable(at: URL)
        /// The file URL names a directory.
        case bodyPartFileIsDirectory(at: URL)
        /// The file exists but this process may not read it, or opening it failed.
        case bodyPartFileNotReadable(at: URL, error: (any Error)?)
        /// The file's size could not be read from its attributes.
        case bodyPartFileSizeNotAvailable(at: URL, error: (any Error)?)
        /// The file's size changed between `append` and encoding, so the form's
        /// ``MultipartFormData/contentLength`` would be wrong.
        case bodyPartFileSizeChanged(at: URL, expected: UInt64, actual: UInt64)
        /// Reading a file or input stream part failed.
        case inputStreamReadFailed(error: any Error)
        /// An input stream part ended before giving the length it was appended with.
        case inputStreamLengthMismatch(expected: UInt64, actual: UInt64)
        /// An input stream part was already read by an earlier encoding; a stream can be read once.
        case inputStreamAlreadyRead
        /// The URL given to ``MultipartFormData/writeEncodedData(to:)`` is not a `file:` URL.
        case outputStreamURLInvalid(url: URL)
        /// Something already exists at the URL given to ``MultipartFormData/writeEncodedData(to:)``.
        case outputStreamFileAlreadyExists(at: URL)
        /// The output file could not be created.
        case outputStreamCreationFailed(for: URL, error: any Error)
        /// Writing the output file failed (disk full, say); the partial file was removed.
        case outputStreamWriteFailed(error: any Error)

        /// The error of the file system or stream behind this reason, if any.
        public var underlyingError: (any Error)? {
            switch self {
            case .bodyPartFileNotReadable(_, let error), .bodyPartFileSizeNotAvailable(_, let error):
                return error
            case .inputStreamReadFailed(let error), .outputStreamCreationFailed(_, let error),
                 .outputStreamWriteFailed(let error):
                return error
            default:
                return nil
            }
        }

        /// What went wrong and how to fix it.
        public var description: String {
            switch self {
            case .boundaryInvalid(let boundary):
                return "\"\(boundary)\" is not a valid multipart boundary: it needs 1 to 70 characters from letters, "
                    + "digits and '()+_,-./:=? or a space (not last). Pass another boundary, or none for a random one."
            case .bodyPartMIMETypeInvalid(let mimeType):
                return "\"\(mimeType.debugDescription.dropFirst().dropLast())\" is not a valid MIME type for a multipart "
                    + "body part: it is empty or contains a control character. Pass a type such as \"image/png\"."
            case .bodyPartURLInvalid(let url):
                return "\(Redaction.url(url)) is not a file URL, so it cannot be a multipart body part. "
                    + "Use URL(fileURLWithPath:), or download the resource first and append its data."
            case .bodyPartFilenameInvalid(let url):
                return "The file URL \(Redaction.url(url)) has no file name to send with its multipart body part. "
                    + "Use append(_:withName:fileName:mimeType:) to give one."
            case .bodyPartFileNotReachable(let url):
                return "The file \(url.path) of a multipart body part does not exist. Check the path, and that the "
                    + "file is not removed before the upload starts."
            case .bodyPartFileIsDirectory(let url):
                return "\(url.path) is a directory, which cannot be a multipart body part. Append each file in it, "
                    + "or an archive of it."
            case .bodyPartFileNotReadable(let url, let error):
                return "The file \(url.path) of a multipart body part cannot be read\(Self.because(error)). "
                    + "Check its permissions."
            case .bodyPartFileSizeNotAvailable(let url, let error):
                return "The size of the file \(url.path) of a multipart body part could not be read\(Self.because(error)). "
                    + "Check that it is a regular file."
            case .bodyPartFileSizeChanged(let url, let expected, let actual):
                return "The file \(url.path) of a multipart body part changed size while the form was built "
                    + "(\(expected) bytes when appended, \(actual) when encoded). Do not modify files until the upload ends."
            case .inputStreamReadFailed(let error):
                return "Reading a multipart body part failed: \(error). Check that the file or stream stays readable "
                    + "until the upload ends."
            case .inputStreamLengthMismatch(let expected, let actual):
                return "An input stream of a multipart body part ended after \(actual) bytes, but was appended with a "
                    + "length of \(expected). Pass the stream's exact length."
            case .inputStreamAlreadyRead:
                return "An input stream of a multipart body part was already read by an earlier encoding, and a stream "
                    + "can be read only once. Build a new form, or append the data or a file instead."
            case .outputStreamURLInvalid(let url):
                return "\(Redaction.url(url)) is not a file URL, so the multipart form cannot be written to it. "
                    + "Use URL(fileURLWithPath:)."
            case .outputStreamFileAlreadyExists(let url):
                return "The multipart form cannot be written to \(url.path): something already exists there, and it "
                    + "is never overwritten. Remove it, or choose a new path."
            case .outputStreamCreationFailed(let url, let error):
                return "The file \(url.path) for the multipart form could not be created: \(error). Check that its "
                    + "directory exists and is writable."
            case .outputStreamWriteFailed(let error):
                return "Writing the multipart form to its file failed: \(error); the partial file was removed. "
                    + "Check the free disk space."
            }
        }

        private static func because(_ error: (any Error)?) -> String {
            error.map { " (\($0))" } ?? ""
        }
    }
}
