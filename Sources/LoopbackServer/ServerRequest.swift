import Foundation

/// One HTTP request as a ``RequestHandler`` sees it: fully read, body included.
///
/// ```swift
/// let server = try LoopbackServer { request in
///     request.method == "POST" ? .echo(request) : .text("hello \(request.query["name"] ?? "")")
/// }
/// ```
public struct ServerRequest: Sendable {
    /// The request method as sent, for example `"GET"`.
    public let method: String
    /// The raw request target, for example `"/path?x=1"`.
    public let target: String
    /// The path part of ``target`` without query or fragment, for example `"/path"`.
    /// Not percent-decoded. An absolute-form target (`http://host/p`) yields `"/p"`.
    public let path: String
    /// The query items of ``target``, percent-decoded (`+` is not special).
    /// A name without `=` maps to `""`; when a name repeats, the last value wins.
    public let query: [String: String]
    /// The header fields in the order received, names as sent.
    public let headers: [(name: String, value: String)]
    /// The request body (de-chunked when it was sent chunked); empty when there was none.
    ///
    /// When the body was larger than the server's `bodyBufferLimit` and the
    /// server was made with ``LoopbackServer/OversizedBodies/truncate``, only
    /// the first `bodyBufferLimit` bytes are kept (``bodyIsTruncated`` is `true`).
    public let body: Data
    /// The length of the whole body as received, also when ``body`` holds only its beginning.
    public let bodyLength: Int64
    /// The ``BodyDigest`` (FNV-1a 64) of the whole body as received.
    public let bodyDigest: UInt64
    /// Whether ``body`` holds only the beginning of a larger body.
    public var bodyIsTruncated: Bool { Int64(body.count) < bodyLength }
    /// The parts of a multipart body too large to keep, split while it streamed in.
    let streamedParts: Result<[MultipartPart], MultipartError>?

    /// Creates a request, deriving ``path`` and ``query`` from `target`.
    ///
    /// The server builds these itself; the initializer is public so tests can
    /// call a handler or ``Reply/echo(_:)`` directly.
    /// - Parameters:
    ///   - method: the request method, for example `"GET"`.
    ///   - target: the request target, for example `"/search?q=swift"`.
    ///   - headers: the header fields in order.
    ///   - body: the request body.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.bodyLength = Int64(body.count)
        self.bodyDigest = BodyDigest.of(body)
        self.streamedParts = nil
        let (path, query) = Self.split(target: target)
        self.path = path
        self.query = query
    }

    /// A request whose body was read in part: what the server builds for an oversized body.
    init(
        method: String, target: String, headers: [(name: String, value: String)],
        bodyPrefix: Data, bodyLength: Int64, bodyDigest: UInt64,
        streamedParts: Result<[MultipartPart], MultipartError>? = nil
    ) {
        self.streamedParts = streamedParts
        self.method = method
        self.target = target
        self.headers = headers
        self.body = bodyPrefix
        self.bodyLength = bodyLength
        self.bodyDigest = bodyDigest
        (path, query) = Self.split(target: target)
    }

    /// The value of the first header field called `name`, compared case-insensitively.
    /// - Parameter name: a header name such as `"content-type"`.
    /// - Returns: the field's value, or `nil` when the request has no such field.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    private static func split(target: String) -> (path: String, query: [String: String]) {
        var rest = Substring(target)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        // Absolute form ("http://host:port/p?q"): drop scheme and authority.
        if let scheme = rest.range(of: "://"), !rest[..<scheme.lowerBound].contains("/") {
            let authority = rest[scheme.upperBound...]
            rest = authority.firstIndex(where: { $0 == "/" || $0 == "?" }).map { authority[$0...] } ?? "/"
            if rest.first == "?" { rest = "/" + rest }
        }
        guard let mark = rest.firstIndex(of: "?") else { return (String(rest), [:]) }
        var query: [String: String] = [:]
        for item in rest[rest.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            query[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return (String(rest[..<mark]), query)
    }

    private static func decode(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }
}
