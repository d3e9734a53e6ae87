import Foundation

extension DownloadRequest {
    /// Why a finished download was not moved to the destination its
    /// ``Destination`` returned.
    ///
    /// It arrives as the `error` of
    /// ``HTTPError/downloadedFileMoveFailed(error:source:destination:)``; the
    /// downloaded file is removed. Each case protects what is already on the
    /// disk: a move never writes through a symbolic link, never removes a
    /// directory, a link or a special file, and never leaves the destination's
    /// directory through a `..` component (see <doc:Security>).
    public enum DestinationError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The destination is not a `file://` URL, or has no file name.
        case notAFileURL(URL)
        /// The destination's path has a `.` or `..` component (or a NUL
        /// character), so it may point outside the directory it names: a name
        /// taken from a response, such as `../.bashrc`, does this.
        case escapingPathComponent(URL)
        /// A file is already at the destination, and the options do not
        /// include ``Options/removePreviousFile``.
        case fileExists(URL)
        /// A symbolic link is at the destination. It is neither followed nor
        /// removed, even with ``Options/removePreviousFile``.
        case symbolicLinkAtDestination(URL)
        /// A directory is at the destination. It is never removed, even with
        /// ``Options/removePreviousFile``.
        case directoryAtDestination(URL)
        /// Something other than a regular file (a socket, a FIFO, a device) is
        /// at the destination. It is never removed.
        case specialFileAtDestination(URL)

        /// What was refused, why, and what to do.
        public var description: String {
            switch self {
            case .notAFileURL(let url):
                return "The destination \(Redaction.url(url)) is not a file URL with a file name. "
                    + "Return a file URL (URL(fileURLWithPath:)) from the Destination closure."
            case .escapingPathComponent(let url):
                return "The destination \(url.path) has a \".\" or \"..\" path component (or a NUL character), which could leave its "
                    + "directory. Build the name with DownloadRequest.suggestedDownloadDestination, or reduce a name "
                    + "taken from the response to one path component."
            case .fileExists(let url):
                return "A file is already at \(url.path). Pass .removePreviousFile to replace it, or choose another name."
            case .symbolicLinkAtDestination(let url):
                return "A symbolic link is at \(url.path); it was neither followed nor removed. "
                    + "Remove it yourself if it is yours, or choose another destination."
            case .directoryAtDestination(let url):
                return "A directory is at \(url.path); directories are never removed, even with .removePreviousFile. "
                    + "Choose another destination."
            case .specialFileAtDestination(let url):
                return "Something other than a regular file is at \(url.path); it was not removed. Choose another destination."
            }
        }
    }
}
