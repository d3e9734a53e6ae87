import Foundation

/// What makes an upload's body (Alamofire's `UploadableConvertible`).
public protocol UploadableConvertible: Sendable {
    /// The body to send.
    /// - Throws: Why it could not be made (a form part that cannot be read,
    ///   a stream read already).
    func createUploadable() throws -> UploadRequest.Uploadable
}

/// What makes an upload's request and body (Alamofire's `UploadConvertible`).
public protocol UploadConvertible: UploadableConvertible & URLRequestConvertible {}

extension UploadRequest.Uploadable: UploadableConvertible {
    /// The uploadable itself.
    public func createUploadable() throws -> UploadRequest.Uploadable { self }
}

extension UploadRequest.Source: UploadableConvertible {
    /// Prepares the body as the request does when it starts, on the calling
    /// thread: a form is encoded (to a temporary file past its threshold,
    /// yours to remove), a stream copied to a temporary file (yours too)
    /// within ``Session/defaultMaximumStreamedBodySize``.
    func createUploadable() throws -> UploadRequest.Uploadable {
        switch self {
        case .data(let data): return .data(data)
        case .file(let url): return .file(url, shouldRemove: false)
        case .multipart(let form, let threshold, let directory):
            switch try form.encodedForUpload(threshold: threshold, in: directory) {
            case .data(let data): return .data(data)
            case .file(let file): return .file(file, shouldRemove: true)
            }
        case .stream(let stream):
            return .file(try stream.spool(limit: Session.defaultMaximumStreamedBodySize) { false }, shouldRemove: true)
        }
    }
}
