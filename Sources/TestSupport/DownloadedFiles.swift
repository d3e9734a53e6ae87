import DeferredQueue
import Foundation

/// Removes the files `requests` finished with. A download made without a
/// destination leaves its file in the temporary directory
/// (`DeferredQueue-download-<UUID>`) and the caller owns it: a test that does
/// not remove it leaks it. Call once the requests have finished (one still
/// running has no file yet); a request that failed has none.
public func removeDownloadedFiles(of requests: [DownloadRequest]) {
    for file in requests.compactMap(\.fileURL) {
        try? FileManager.default.removeItem(at: file)
    }
}

/// Removes the files `requests` finished with (see the array form).
public func removeDownloadedFiles(of requests: DownloadRequest...) {
    removeDownloadedFiles(of: requests)
}
