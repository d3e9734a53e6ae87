import Foundation

extension Reply {
    /// The most bytes of a part sent back as text by ``multipartEcho(_:)``.
    public static let multipartEchoTextLimit = 4096

    /// A `200` JSON description of a multipart request's parts, for tests of
    /// multipart uploads.
    ///
    /// ```json
    /// {"bodyDigest": "…", "bodyIsTruncated": false, "bodyLength": 1234,
    ///  "parts": [{"name": "file", "filename": "a.txt", "contentType": "text/plain",
    ///             "headers": {"Content-Disposition": "…"}, "length": 5,
    ///             "digest": "…", "body": "hello"}]}
    /// ```
    ///
    /// Per part: `name` and `filename` (from `Content-Disposition`) and
    /// `contentType` when present, `headers` (names as sent, repeated names
    /// joined with `", "`), `length`, `digest` (its ``BodyDigest`` as 16
    /// hexadecimal digits), and `body` when the content is valid UTF-8 of at
    /// most ``multipartEchoTextLimit`` bytes. A malformed body (not multipart,
    /// no boundary, a part cut short) is answered `400` with the text
    /// `malformed multipart body: <reason>`.
    ///
    /// A body larger than the server keeps (see ``LoopbackServer/OversizedBodies/truncate``)
    /// was split into parts as it streamed in: its parts have their whole
    /// `length` and `digest`, and `body` only when the part is at most 4 KiB;
    /// `bodyIsTruncated` is `true`.
    /// - Parameter request: the request to describe.
    /// - Returns: the JSON reply, or a `400` text reply.
    public static func multipartEcho(_ request: ServerRequest) -> Reply {
        var object: [String: Any] = [
            "bodyLength": request.bodyLength,
            "bodyDigest": BodyDigest.hexadecimal(request.bodyDigest),
            "bodyIsTruncated": request.bodyIsTruncated,
        ]
        do throws(MultipartError) {
            object["parts"] = try request.multipartParts().map(describe)
        } catch {
            return .text(error.description, status: 400)
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            return .json(data: data)
        } catch {
            return .text("multipartEcho could not encode the parts: \(error)", status: 500)
        }
    }

    private static func describe(_ part: MultipartPart) -> [String: Any] {
        var headers: [String: String] = [:]
        for (name, value) in part.headers {
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        var object: [String: Any] = [
            "headers": headers,
            "length": part.length,
            "digest": BodyDigest.hexadecimal(part.digest),
        ]
        object["name"] = part.name
        object["filename"] = part.filename
        object["contentType"] = part.contentType
        if !part.bodyIsTruncated, part.body.count <= multipartEchoTextLimit, let text = String(data: part.body, encoding: .utf8) {
            object["body"] = text
        }
        return object
    }
}
