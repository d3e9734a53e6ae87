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
        let body = try prepared(limit: Session.defaultMaximumStreamedBodySize, isCancelled: { false })
        // `prepared` never leaves the body in the request.
        return UploadRequest.Uploadable(body) ?? .data(Data())
    }
}
