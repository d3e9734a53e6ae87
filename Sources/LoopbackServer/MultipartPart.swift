import Foundation

/// One part of a `multipart/form-data` (or other `multipart/*`) request body,
/// as ``ServerRequest/multipartParts()`` finds it.
public struct MultipartPart: Sendable {
    /// The part's header fields in order, names as sent.
    public let headers: [(name: String, value: String)]
    /// The `name` parameter of the part's `Content-Disposition`, if any.
    public let name: String?
    /// The `filename` parameter of the part's `Content-Disposition`, if any.
    public let filename: String?
    /// The part's `Content-Type` header value, if any.
    public let contentType: String?
    /// The part's content, between its header block and the next boundary.
    ///
    /// For a part of a body too large to keep (read while it streamed in,
    /// see ``ServerRequest/multipartParts()``), only the first 4 KiB.
    public let body: Data
    /// The length of the part's whole content.
    public let length: Int64
    /// The ``BodyDigest`` of the part's whole content.
    public let digest: UInt64
    /// Whether ``body`` holds only the beginning of the part's content.
    public var bodyIsTruncated: Bool { Int64(body.count) < length }

    /// The value of the first header field called `name`, compared case-insensitively.
    /// - Parameter name: a header name such as `"content-disposition"`.
    /// - Returns: the field's value, or `nil` when the part has no such field.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    init(headers: [(name: String, value: String)], body: Data) {
        self.init(headers: headers, bodyPrefix: body, length: Int64(body.count), digest: BodyDigest.of(body))
    }

    init(headers: [(name: String, value: String)], bodyPrefix: Data, length: Int64, digest: UInt64) {
        self.headers = headers
        self.body = bodyPrefix
        self.length = length
        self.digest = digest
        let disposition = headers.first { $0.name.caseInsensitiveCompare("Content-Disposition") == .orderedSame }
        let parameters = disposition.map { MultipartParser.parameters(of: $0.value) } ?? [:]
        name = parameters["name"]
        filename = parameters["filename"]
        contentType = headers.first { $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame }?.value
    }
}

/// Why a request body could not be read as multipart.
public struct MultipartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, for example `"no boundary parameter in Content-Type"`.
    public let reason: String

    /// Creates an error with a reason.
    /// - Parameter reason: what is wrong with the body.
    public init(reason: String) {
        self.reason = reason
    }

    /// `malformed multipart body: <reason>`.
    public var description: String { "malformed multipart body: \(reason)" }
}

extension ServerRequest {
    /// The parts of a `multipart/*` body, read from ``body``.
    ///
    /// When the body was too large to keep (``bodyIsTruncated``, see
    /// ``LoopbackServer/OversizedBodies/truncate``), the server split it into
    /// parts while it streamed in: each part then has its whole
    /// ``MultipartPart/length`` and ``MultipartPart/digest`` but only the
    /// first 4 KiB of its ``MultipartPart/body``.
    ///
    /// The boundary comes from the `Content-Type` header's `boundary`
    /// parameter (quoted or not). A preamble before the first boundary and an
    /// epilogue after the last are ignored; each delimiter must start a line
    /// (CRLF before it, except at the very start) and be followed by CRLF or,
    /// for the last, by `--`.
    /// - Returns: the parts in order.
    /// - Throws: ``MultipartError`` when the request is not multipart, has no
    ///   boundary, a part is cut short (no header block end, no closing
    ///   boundary).
    public func multipartParts() throws(MultipartError) -> [MultipartPart] {
        let boundary = try MultipartParser.boundary(contentType: header("Content-Type"))
        guard bodyIsTruncated else { return try MultipartParser(body: body, boundary: boundary).parts() }
        guard let streamedParts else {
            throw MultipartError(reason: "the body (\(bodyLength) bytes) was larger than the server keeps")
        }
        return try streamedParts.get()
    }
}
