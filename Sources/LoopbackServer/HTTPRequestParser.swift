import Foundation

/// A request read off the wire, with what the connection needs to answer it.
struct ParsedRequest: Sendable {
    /// What the handler sees.
    var request: ServerRequest
    /// Whether the client wants the connection kept open afterwards.
    var keepAlive: Bool
    /// Whether the method is `HEAD` (answer with headers only).
    var isHead: Bool
}

/// Why a request could not be read; the connection answers `status` and closes.
struct HTTPParseError: Error, Sendable, Equatable {
    /// The status to answer with: 400, 413, 431, 501 or 505.
    let status: Int
    /// A short explanation, sent as the text body.
    let reason: String
}

/// An incremental HTTP/1.1 request parser: feed it bytes as they arrive, take
/// complete requests out in order (pipelining works because unconsumed bytes stay buffered).
///
/// Accepts CRLF or bare LF line endings, bodies framed by `Content-Length` or
/// `Transfer-Encoding: chunked` (trailers are read and dropped), and leading
/// empty lines before a request line. Limits keep a bad client from exhausting
/// memory: the head (request line plus headers) and the trailers may not exceed
/// `maxHeaderBytes` (431); a body over `bodyBufferLimit` is refused (413), or,
/// with `truncatesLargeBodies`, read to its end keeping only its first
/// `bodyBufferLimit` bytes, its length and its ``BodyDigest``.
struct HTTPRequestParser: Sendable {
    /// What ``next()`` found.
    enum Event: Sendable {
        /// A complete request.
        case request(ParsedRequest)
        /// A head with `Expect: 100-continue` was read and its body is still to come.
        case expectsContinue
    }

    let maxHeaderBytes: Int
    let bodyBufferLimit: Int
    let truncatesLargeBodies: Bool

    private var buffer: [UInt8] = []
    /// Index of the first unconsumed byte in `buffer`.
    private var start = 0
    /// While reading a head or a line: how many bytes after `start` were already scanned.
    private var scanned = 0
    /// While reading a head: offset after `start` of the line being scanned.
    private var lineStart = 0
    private var phase = Phase.head
    private var body = Data()
    private var bodyLength: Int64 = 0
    private var digest = BodyDigest()
    /// The boundary of a multipart body that may outgrow the buffer (truncating parsers only).
    private var multipartBoundary: String?
    /// Splits a multipart body into parts once it outgrew the buffer.
    private var scanner: MultipartScanner?
    private var trailerBytes = 0

    /// A request line and header block.
    struct Head: Sendable {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var keepAlive: Bool
    }

    private enum Phase: Sendable {
        case head
        case fixedBody(Head, remaining: Int)
        case chunkSize(Head)
        case chunkData(Head, remaining: Int)
        case chunkEnd(Head)
        case trailers(Head)
    }

    init(maxHeaderBytes: Int = 64 * 1024, bodyBufferLimit: Int = 64 * 1024 * 1024, truncatesLargeBodies: Bool = false) {
        self.maxHeaderBytes = maxHeaderBytes
        self.bodyBufferLimit = max(0, bodyBufferLimit)
        self.truncatesLargeBodies = truncatesLargeBodies
    }

    /// A fresh parser with the same limits.
    func reset() -> HTTPRequestParser {
        HTTPRequestParser(
            maxHeaderBytes: maxHeaderBytes, bodyBufferLimit: bodyBufferLimit, truncatesLargeBodies: truncatesLargeBodies
        )
    }

    /// Whether no request is partly read (nothing buffered, no body in progress).
    var isIdle: Bool {
        if case .head = phase { return start == buffer.count }
        return false
    }

    /// Adds bytes that arrived from the client.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        } else if start >= 1 << 16 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds bytes that arrived from the client.
    mutating func append(_ bytes: some Sequence<UInt8>) {
        Array(bytes).withUnsafeBytes { append($0) }
    }

    /// Takes the next event out of the buffered bytes.
    /// - Returns: a request or an expect-continue notice, or `nil` when more bytes are needed.
    /// - Throws: ``HTTPParseError`` when the request is malformed or too large;
    ///   the parser must not be used afterwards.
    mutating func next() throws(HTTPParseError) -> Event? {
        while true {
            switch phase {
            case .head:
                guard let head = try readHead() else { return nil }
                if let event = try beginBody(head) { return event }
            case .fixedBody(let head, let remaining):
                let left = takeBody(remaining)
                guard left == 0 else { phase = .fixedBody(head, remaining: left); return nil }
                return finish(head)
            case .chunkSize(let head):
                guard let line = try readLine(limit: 4096) else { return nil }
                let digits = line.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
                guard !digits.isEmpty, digits.count <= 15, let size = Int(digits, radix: 16), size >= 0 else {
                    throw HTTPParseError(status: 400, reason: "bad chunk size line")
                }
                guard truncatesLargeBodies || bodyLength + Int64(size) <= Int64(bodyBufferLimit) else {
                    throw Self.bodyTooLarge(bodyBufferLimit)
                }
                phase = size == 0 ? .trailers(head) : .chunkData(head, remaining: size)
            case .chunkData(let head, let remaining):
                let left = takeBody(remaining)
                guard left == 0 else { phase = .chunkData(head, remaining: left); return nil }
                phase = .chunkEnd(head)
            case .chunkEnd(let head):
                guard let line = try readLine(limit: 2) else { return nil }
                guard line.isEmpty else { throw HTTPParseError(status: 400, reason: "chunk data longer than its size") }
                phase = .chunkSize(head)
            case .trailers(let head):
                guard let line = try readLine(limit: maxHeaderBytes) else { return nil }
                if line.isEmpty { return finish(head) }
                trailerBytes += line.utf8.count
                guard trailerBytes <= maxHeaderBytes else {
                    throw HTTPParseError(status: 431, reason: "trailer fields too large")
                }
            }
        }
    }

    // MARK: - Head

    private mutating func readHead() throws(HTTPParseError) -> Head? {
        if scanned == 0 {
            // Ignore empty lines before a request line (RFC 9112 §2.2).
            while start < buffer.count, buffer[start] == 13 || buffer[start] == 10 { start += 1 }
        }
        var index = start + scanned
        var end: Int?
        while index < buffer.count {
            if buffer[index] == 10 {
                let line = index - (start + lineStart)
                if line == 0 || (line == 1 && buffer[index - 1] == 13) {
                    end = index + 1
                    break
                }
                lineStart = index + 1 - start
            }
            index += 1
        }
        scanned = index - start
        guard let end else {
            if scanned > maxHeaderBytes { throw HTTPParseError(status: 431, reason: "request head too large") }
            return nil
        }
        guard end - start <= maxHeaderBytes else { throw HTTPParseError(status: 431, reason: "request head too large") }
        let bytes = buffer[start..<end]
        start = end
        scanned = 0
        lineStart = 0
        return try Self.parseHead(bytes)
    }

    /// Decides how the body is framed; returns an event when one is ready now.
    private mutating func beginBody(_ head: Head) throws(HTTPParseError) -> Event? {
        var head = head
        let values = { (name: String) in head.headers.filter { $0.name.lowercased() == name }.map(\.value) }
        if truncatesLargeBodies {
            multipartBoundary = try? MultipartParser.boundary(contentType: values("content-type").first)
        }
        if let encoding = values("transfer-encoding").last {
            guard encoding.lowercased().split(separator: ",").last?.trimmingCharacters(in: .whitespaces) == "chunked"
            else { throw HTTPParseError(status: 501, reason: "unsupported transfer coding \(encoding)") }
            // With both framings present the message is suspect; answer, then close (RFC 9112 §6.3).
            if !values("content-length").isEmpty { head.keepAlive = false }
            phase = .chunkSize(head)
        } else {
            let lengths = Set(values("content-length").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) })
            guard lengths.count <= 1 else { throw Self.malformed("conflicting Content-Length values") }
            guard let text = lengths.first else { return finish(head) }
            guard !text.isEmpty, text.count <= 18, text.allSatisfy(\.isASCII), let length = Int(text), length >= 0
            else { throw Self.malformed("bad Content-Length") }
            guard truncatesLargeBodies || length <= bodyBufferLimit else { throw Self.bodyTooLarge(bodyBufferLimit) }
            guard length > 0 else { return finish(head) }
            phase = .fixedBody(head, remaining: length)
        }
        let expect = values("expect").contains { $0.lowercased() == "100-continue" }
        return expect && start == buffer.count ? .expectsContinue : nil
    }

    // MARK: - Body

    /// Consumes up to `remaining` buffered body bytes (counted and digested; kept up to
    /// `bodyBufferLimit`); returns how many are still missing.
    private mutating func takeBody(_ remaining: Int) -> Int {
        let count = min(remaining, buffer.count - start)
        guard count > 0 else { return remaining }
        buffer.withUnsafeBytes { bytes in
            let taken = UnsafeRawBufferPointer(rebasing: bytes[start..<start + count])
            digest.update(taken)
            let kept = min(count, bodyBufferLimit - body.count)
            if kept > 0 { body.append(contentsOf: UnsafeRawBufferPointer(rebasing: taken[..<kept])) }
            guard kept < count, let boundary = multipartBoundary else { return }
            if scanner == nil {
                // The body just outgrew the buffer: scan what was kept, then everything after it.
                scanner = MultipartScanner(boundary: boundary)
                body.withUnsafeBytes { scanner?.feed($0) }
            }
            scanner?.feed(UnsafeRawBufferPointer(rebasing: taken[kept...]))
        }
        bodyLength += Int64(count)
        start += count
        return remaining - count
    }

    /// Reads one line (without its CRLF or LF); `nil` when it is not complete yet.
    private mutating func readLine(limit: Int) throws(HTTPParseError) -> String? {
        var index = start + scanned
        while index < buffer.count, buffer[index] != 10 { index += 1 }
        guard index < buffer.count else {
            scanned = index - start
            if scanned > limit { throw Self.malformed("line too long") }
            return nil
        }
        var end = index
        if end > start, buffer[end - 1] == 13 { end -= 1 }
        let line = String(decoding: buffer[start..<end], as: UTF8.self)
        start = index + 1
        scanned = 0
        return line
    }

    private mutating func finish(_ head: Head) -> Event {
        let request = ServerRequest(
            method: head.method, target: head.target, headers: head.headers,
            bodyPrefix: body, bodyLength: bodyLength, bodyDigest: digest.value, streamedParts: scanner?.finish()
        )
        body = Data()
        bodyLength = 0
        digest = BodyDigest()
        multipartBoundary = nil
        scanner = nil
        trailerBytes = 0
        phase = .head
        return .request(ParsedRequest(request: request, keepAlive: head.keepAlive, isHead: head.method == "HEAD"))
    }
}
