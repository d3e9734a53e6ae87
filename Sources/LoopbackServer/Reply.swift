import Foundation

/// What a ``LoopbackServer`` does with one request: a normal response, one
/// of the misbehaviours HTTP client tests need (slow, truncated, silent, raw),
/// or a huge body made while it is sent (generated, gzip).
///
/// The server adds `Content-Length` (or `Transfer-Encoding: chunked`) itself
/// unless the reply's headers already carry one, adds `Connection: close` when
/// it closes after the reply, and sends headers only for `HEAD` requests and for
/// statuses that have no body (1xx, 204, 304). Header names and values have CR
/// and LF replaced by spaces, so a reply cannot break the framing by accident;
/// use ``raw(_:)`` to send arbitrary bytes. A status outside 100...999 is
/// answered as `500` with a text body naming the bad status.
public enum Reply: Sendable {
    /// A normal response.
    ///
    /// `Content-Length` is computed from `body` unless `headers` already has
    /// one, so a test can announce a wrong length; when the announced length
    /// differs from `body.count` the server closes the connection after the
    /// body, so the client sees a truncated (or over-long) message, not a hang
    /// on the next request. `HEAD` requests get the headers only.
    case response(status: Int, headers: [(String, String)] = [], body: Data = Data())

    /// A `Transfer-Encoding: chunked` response; `chunks` are sent one by one
    /// with `interval` seconds between them. Empty chunks are skipped (an
    /// empty chunk would end the body).
    case chunked(status: Int = 200, headers: [(String, String)] = [], chunks: [Data], interval: Double = 0)

    /// Sends `reply` after the given number of seconds, without blocking other connections.
    indirect case delayed(Double, Reply)

    /// Announces `Content-Length: body.count`, then sends the body `chunkSize`
    /// bytes at a time (at least 1) every `interval` seconds.
    case trickle(status: Int = 200, headers: [(String, String)] = [], body: Data, chunkSize: Int, interval: Double)

    /// Announces `Content-Length: body.count` but sends only the first
    /// `sentBytes` bytes (clamped to `0...body.count`), then closes the connection.
    case closeMidBody(status: Int = 200, headers: [(String, String)] = [], body: Data, sentBytes: Int)

    /// Sends the status line and headers (declaring `Content-Length: declaredLength`), then closes.
    case closeAfterHeaders(status: Int = 200, headers: [(String, String)] = [], declaredLength: Int)

    /// Closes the connection immediately without answering.
    case close

    /// `count` interim heads (`HTTP/1.1 <status> Interim`, no fields)
    /// `interval` seconds apart, and never a final response: a server that
    /// keeps a request waiting with heads that are not its answer.
    case interimHeads(status: Int = 100, count: Int, interval: Double)

    /// Never answers: holds the connection open until the client leaves or the
    /// server shuts down. Later requests pipelined on the same connection are not answered either.
    case neverRespond

    /// Writes exactly these bytes, then closes the connection.
    ///
    /// Nothing is added or checked, so a test can send what no well-behaved
    /// server does: a status line without a reason phrase (`HTTP/1.1 200`),
    /// `Content-Length:5` without a space, bare LF line ends, or a head
    /// without its terminating blank line (the client then sees the
    /// connection close in the middle of the headers).
    case raw(Data)

    /// A body of `length` bytes of `content`, made as the client reads it, so
    /// a reply of a gibibyte or more costs the server no more than about 1 MiB.
    ///
    /// Framed by `Content-Length: length` (unless `headers` declare one; a
    /// different declared length closes the connection after the body), or by
    /// `Transfer-Encoding: chunked` with chunks of `chunkSize` bytes when
    /// `chunked` is set. `Content-Type: application/octet-stream` is added
    /// unless `headers` have one. The client checks what it received with
    /// `GeneratedContent.firstMismatch(in:startingAt:)`.
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: extra header fields.
    ///   - length: the body length in bytes (a negative length means 0).
    ///   - content: what the bytes are; the offset pattern by default.
    ///   - chunked: whether to send the body chunked.
    ///   - chunkSize: bytes per write (and per chunk), clamped to 1 byte...512 KiB.
    ///   - interval: seconds to wait after each chunk, for slow streams (0: as fast as the client reads).
    case generated(
        status: Int = 200, headers: [(String, String)] = [], length: Int64, content: GeneratedContent = .pattern,
        chunked: Bool = false, chunkSize: Int = 64 * 1024, interval: Double = 0
    )

    /// A `Content-Encoding: gzip` body that decodes to `decodedLength` bytes of
    /// `content`, compressed about a hundredfold (64 MiB of decoded bytes are
    /// sent as about 0.6 MiB), made as the client reads it.
    ///
    /// The compressed stream is one fixed-Huffman deflate block: literals for
    /// the first period of `content`, then back-references of 258 bytes, with
    /// the gzip CRC-32 and length trailer, so a decoder that checks the
    /// trailer accepts it. Framed by `Content-Length` (of the compressed bytes)
    /// or chunked, as in ``generated(status:headers:length:content:chunked:chunkSize:interval:)``;
    /// `chunkSize` and `interval` apply to the compressed bytes, so a small
    /// chunk and a pause make a slow download a client can cancel midway.
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: extra header fields (`Content-Encoding: gzip` is added unless present).
    ///   - decodedLength: the decoded body length in bytes (a negative length means 0).
    ///   - content: what the decoded bytes are; the offset pattern by default.
    ///   - chunked: whether to send the compressed body chunked.
    ///   - chunkSize: compressed bytes per write (and per chunk), clamped to 1 byte...512 KiB.
    ///   - interval: seconds to wait after each write of compressed bytes.
    case gzip(
        status: Int = 200, headers: [(String, String)] = [], decodedLength: Int64,
        content: GeneratedContent = .pattern, chunked: Bool = false, chunkSize: Int = 64 * 1024, interval: Double = 0
    )

    /// A body encoded `layers` times with gzip (`Content-Encoding: gzip, gzip, …`),
    /// sent chunked: the innermost layer is the compression bomb of
    /// ``gzip(status:headers:decodedLength:content:chunked:chunkSize:interval:)``
    /// (about a hundredfold), each outer one a gzip member of stored blocks,
    /// so a client must undo every layer to reach `decodedLength` bytes of `content`.
    /// - Parameters:
    ///   - layers: how many times the body is gzip-encoded (at least 1).
    ///   - decodedLength: the decoded body length in bytes.
    ///   - content: what the decoded bytes are; the offset pattern by default.
    case nestedGzip(layers: Int, decodedLength: Int64, content: GeneratedContent = .pattern)

    /// A redirect (normally a 3xx status) with a `Location` header and an empty body.
    case redirect(to: String, status: Int = 302)

    /// A text response.
    /// - Parameters:
    ///   - text: the body, sent as UTF-8.
    ///   - status: the status code; 200 by default.
    ///   - contentType: the `Content-Type` header value.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> Reply {
        .response(status: status, headers: [("Content-Type", contentType)], body: Data(text.utf8))
    }

    /// A JSON response from JSON text (sent as UTF-8 with `Content-Type: application/json`).
    /// The text is sent as given, not validated, so a test can send malformed JSON.
    public static func json(_ text: String, status: Int = 200) -> Reply {
        json(data: Data(text.utf8), status: status)
    }

    /// A JSON response from encoded bytes (`Content-Type: application/json`).
    public static func json(data: Data, status: Int = 200) -> Reply {
        .response(status: status, headers: [("Content-Type", "application/json")], body: data)
    }

    /// A `200` JSON description of `request`, for tests that check what a client sent.
    ///
    /// The object has the keys `method`, `target`, `path`, `query` (object),
    /// `headers` (object of name → value; names as sent, repeated names joined
    /// with `", "`), `body` (the body as UTF-8 text, or base64 when it is not
    /// valid UTF-8), `bodyEncoding` (`"utf8"` or `"base64"`), `bodyLength`
    /// (of the whole body), `bodyDigest` (its ``BodyDigest`` as 16 hexadecimal
    /// digits) and `bodyIsTruncated` (whether `body` holds only the beginning,
    /// see ``LoopbackServer/OversizedBodies/truncate``).
    /// Keys are sorted and slashes are not escaped.
    public static func echo(_ request: ServerRequest) -> Reply {
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let text = String(data: request.body, encoding: .utf8)
        let object: [String: Any] = [
            "method": request.method,
            "target": request.target,
            "path": request.path,
            "query": request.query,
            "headers": headers,
            "body": text ?? request.body.base64EncodedString(),
            "bodyEncoding": text == nil ? "base64" : "utf8",
            "bodyLength": request.bodyLength,
            "bodyDigest": BodyDigest.hexadecimal(request.bodyDigest),
            "bodyIsTruncated": request.bodyIsTruncated,
        ]
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            return .json(data: data)
        } catch {
            return .text("echo could not encode the request: \(error)", status: 500)
        }
    }
}
