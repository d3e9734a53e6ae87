import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DownloadRequest {
    /// A destination in a search-path directory, named after the file name the
    /// response suggests.
    ///
    /// The name comes from the response — `Content-Disposition`'s `filename*`
    /// or `filename`, else the URL's last path segment — so the server, or
    /// any server it redirects to, chooses it. It is therefore reduced to one
    /// safe path component before use: decoded once, with `/`, `\`, `:`, NUL
    /// and other control or invisible characters replaced by `_`, leading and
    /// trailing dots and spaces removed (never `.`, `..` or a hidden file),
    /// at most 255 bytes of UTF-8, and `download` when nothing is left.
    /// `..%2F.bashrc` becomes `_.bashrc`, `%2E%2E` becomes `download`, a
    /// name with spaces or any script stays as it is. The file therefore
    /// always lands directly in the directory, and the move that puts it
    /// there never follows a symbolic link or removes anything but one
    /// regular file of that name (see ``DestinationError``).
    ///
    /// - Parameters:
    ///   - directory: The search-path directory (default: the user's documents).
    ///   - domain: Where to look for it (default: the user's home).
    ///   - options: How to move (default: create the directory; an existing
    ///     file of the same name fails the download with
    ///     ``DestinationError/fileExists(_:)`` unless you add
    ///     `.removePreviousFile`: the server chooses the name).
    /// - Returns: The destination. When the directory cannot be found, it is
    ///   the temporary directory.
    public static func suggestedDownloadDestination(
        for directory: FileManager.SearchPathDirectory = .documentDirectory,
        in domain: FileManager.SearchPathDomainMask = .userDomainMask,
        options: Options = [.createIntermediateDirectories]
    ) -> Destination {
        { temporaryURL, response in
            let base = FileManager.default.urls(for: directory, in: domain).first ?? FileManager.default.temporaryDirectory
            return suggestedDownloadDestination(inDirectory: base, options: options)(temporaryURL, response)
        }
    }

    /// A destination in `directoryURL`, named after the file name the
    /// response suggests, reduced to one safe path component.
    ///
    /// The same rules as
    /// ``suggestedDownloadDestination(for:in:options:)``, for a directory
    /// given as a URL: a server usually has no documents directory.
    ///
    /// ```swift
    /// let downloads = URL(fileURLWithPath: "/var/lib/myservice/downloads")
    /// download(url, to: DownloadRequest.suggestedDownloadDestination(inDirectory: downloads))
    /// ```
    ///
    /// - Parameters:
    ///   - directoryURL: The directory the file lands in (a file URL).
    ///   - options: How to move (default: create the directory; an existing
    ///     file of the same name fails the download with
    ///     ``DestinationError/fileExists(_:)`` unless you add
    ///     `.removePreviousFile`: the server chooses the name).
    /// - Returns: The destination.
    public static func suggestedDownloadDestination(
        inDirectory directoryURL: URL,
        options: Options = [.createIntermediateDirectories]
    ) -> Destination {
        { _, response in
            (directoryURL.appendingPathComponent(DownloadFileName.suggested(by: response), isDirectory: false), options)
        }
    }
}
