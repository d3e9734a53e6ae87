import DeferredQueue
import Foundation
import LoopbackServer

/// A fresh directory under the system's temporary directory, removed on deinit.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("multipart-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `contents` to a new file called `name` in the directory.
    func file(_ name: String, contents: Data) throws -> URL {
        let fileURL = url.appendingPathComponent(name)
        try contents.write(to: fileURL)
        return fileURL
    }

    /// A URL in the directory where nothing exists yet.
    func unusedURL(_ name: String = UUID().uuidString) -> URL {
        url.appendingPathComponent(name)
    }
}

extension MultipartFormData {
    /// The encoded form split into parts by LoopbackServer's parser, as a server would see it.
    func parsedParts() throws -> [MultipartPart] {
        try ServerRequest(method: "POST", target: "/", headers: [("Content-Type", contentType)], body: encode())
            .multipartParts()
    }
}

/// The reason of a multipart encoding failure, or `nil` for any other error.
func multipartReason(_ error: any Error) -> HTTPError.MultipartEncodingFailureReason? {
    if case .multipartEncodingFailed(let reason) = error as? HTTPError { return reason }
    return nil
}

/// What `encode()` threw, as a multipart reason; `nil` when it succeeded or threw something else.
func encodingFailure(of form: MultipartFormData) -> HTTPError.MultipartEncodingFailureReason? {
    do {
        _ = try form.encode()
        return nil
    } catch {
        return multipartReason(error)
    }
}
