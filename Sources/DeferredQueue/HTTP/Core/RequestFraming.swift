import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fields that say where a request's body ends, checked against the body
/// an attempt sends.
///
/// libcurl sends a caller's `Content-Length` as it is, then the whole body:
/// a shorter length ends the request early on the server, which reads the
/// rest of the body as a request of the sender's choosing on the same
/// connection (and the next response may be that one's). A `Transfer-Encoding`
/// other than `chunked`, or both fields, frames a body two ways at once, as
/// proxies read it one way and servers the other. The session refuses both
/// on every transport, before anything is sent; a `Content-Length` that is the
/// body's length is kept.
enum RequestFraming {
    /// Why `request` must not be sent with its body (`request.httpBody`, or
    /// `bodyFile`), or `nil`.
    ///
    /// - Parameters:
    ///   - checkingFraming: Whether the caller set `Content-Length` or
    ///     `Transfer-Encoding` (known from the fields the session checked).
    ///   - bodyInGET: Whether the transport can send a `GET` (or a `HEAD`) with a body.
    static func refusal(of request: URLRequest, bodyFile: URL?, checkingFraming: Bool, bodyInGET: Bool) -> HTTPError? {
        // libcurl sends no body with a HEAD either: dropped unsaid.
        if !bodyInGET, bodyFile != nil || request.httpBody != nil, ["GET", "HEAD"].contains(request.httpMethod ?? "GET") {
            return .urlRequestValidationFailed(reason: .bodyDataInGETRequest(request.httpBody ?? Data()))
        }
        guard checkingFraming else { return nil }
        let length = request.value(forHTTPHeaderField: "Content-Length")
        if let coding = request.value(forHTTPHeaderField: "Transfer-Encoding") {
            let isChunked = coding.trimmingCharacters(in: .whitespaces).lowercased() == "chunked"
            // Without a body, libcurl sends the field and no chunk: the server waits for one.
            let hasBody = request.httpBody?.isEmpty == false || bodyFile != nil || request.httpBodyStream != nil
            guard isChunked, length == nil, hasBody else { return .urlRequestValidationFailed(reason: .invalidTransferEncoding(coding)) }
        }
        guard let length else { return nil }
        // A stream's length is known only once it was read, so no declared
        // one can be checked: the transport frames such a body itself
        // (libcurl sends it chunked, beside the caller's `Content-Length`).
        if request.httpBody == nil, bodyFile == nil, request.httpBodyStream != nil {
            return .urlRequestValidationFailed(reason: .invalidContentLength(declared: length, bodyLength: -1))
        }
        let bodyLength = Self.length(ofBody: request.httpBody, file: bodyFile)
        // Read as a response's is: `+5`, `0x5`, `5 5` or a list are refused, not read.
        guard let bodyLength, ContentLength.parse(length) == bodyLength else {
            return .urlRequestValidationFailed(reason: .invalidContentLength(declared: length, bodyLength: bodyLength ?? -1))
        }
        return nil
    }

    /// The body's length in bytes: the data's, the file's (`nil` when it
    /// cannot be read), or 0 without either.
    private static func length(ofBody body: Data?, file: URL?) -> Int64? {
        if let file {
            let size = try? FileManager.default.attributesOfItem(atPath: file.resolvingSymlinksInPath().path)[.size] as? NSNumber
            return size?.int64Value
        }
        return Int64(body?.count ?? 0)
    }
}
