import Foundation

/// One action of a reply in progress, run in order by a ``Connection``.
enum ReplyStep: Sendable {
    /// Queue these bytes for writing.
    case send(Data)
    /// Pause this many seconds (finite, positive) before the next step.
    case wait(Double)
    /// Flush what was queued, then close the connection; the reply ends here.
    case close
    /// Stop here and keep the connection open, unanswered (``Reply/neverRespond``).
    case hold
    /// Write this body as the client reads it; the next step runs once it is complete.
    case stream(BodyStream)
}

/// A ``Reply`` turned into wire bytes and pauses for one request.
///
/// Building the plan is pure: it knows the request's method and whether the
/// client wants the connection kept alive, and decides every byte up front.
struct ReplyPlan: Sendable {
    /// The steps to run in order.
    private(set) var steps: [ReplyStep] = []
    /// Whether the connection closes once all steps ran (no keep-alive).
    private(set) var closesAfter: Bool

    private let isHead: Bool

    /// The longest pause honoured, in seconds (about 11 days), so a huge
    /// interval cannot overflow the dispatch clock.
    static let longestWait = 1_000_000.0

    /// Plans `reply` for a request.
    /// - Parameters:
    ///   - reply: what the handler returned.
    ///   - isHead: whether the request method is `HEAD` (headers only).
    ///   - keepAlive: whether the client asked to keep the connection open.
    init(_ reply: Reply, isHead: Bool, keepAlive: Bool) {
        self.isHead = isHead
        self.closesAfter = !keepAlive
        add(reply)
    }

    private mutating func add(_ reply: Reply) {
        switch reply {
        case let .response(status, headers, body):
            guard Self.isValid(status) else { return add(Self.invalidStatus(status)) }
            let withBody = !isHead && Self.allowsBody(status)
            let framing = Self.framing(of: headers)
            if framing.hasTransferEncoding || framing.contentLength.map({ $0 != body.count }) == true {
                closesAfter = true
            }
            let length = framing.isDeclared || !Self.allowsBody(status) ? nil : ("Content-Length", "\(body.count)")
            send(head(status, headers, length) + (withBody ? body : Data()))
        case let .chunked(status, headers, chunks, interval):
            guard Self.isValid(status) else { return add(Self.invalidStatus(status)) }
            let framing = Self.framing(of: headers)
            let encoding = framing.hasTransferEncoding ? nil : ("Transfer-Encoding", "chunked")
            send(head(status, headers, encoding))
            guard !isHead && Self.allowsBody(status) else { return }
            for (index, chunk) in chunks.filter({ !$0.isEmpty }).enumerated() {
                if index > 0 { wait(interval) }
                send(Data(String(chunk.count, radix: 16).utf8) + Data("\r\n".utf8) + chunk + Data("\r\n".utf8))
            }
            send(Data("0\r\n\r\n".utf8))
        case let .delayed(seconds, reply):
            wait(seconds)
            add(reply)
        case let .trickle(status, headers, body, chunkSize, interval):
            guard Self.isValid(status) else { return add(Self.invalidStatus(status)) }
            let framing = Self.framing(of: headers)
            if framing.hasTransferEncoding || framing.contentLength.map({ $0 != body.count }) == true {
                closesAfter = true
            }
            send(head(status, headers, framing.isDeclared ? nil : ("Content-Length", "\(body.count)")))
            guard !isHead && Self.allowsBody(status) else { return }
            let size = max(1, chunkSize)
            for (index, start) in stride(from: body.startIndex, to: body.endIndex, by: size).enumerated() {
                if index > 0 { wait(interval) }
                send(body[start..<min(start + size, body.endIndex)])
            }
        case let .closeMidBody(status, headers, body, sentBytes):
            guard Self.isValid(status) else { return add(Self.invalidStatus(status)) }
            let framing = Self.framing(of: headers)
            send(head(status, headers, framing.isDeclared ? nil : ("Content-Length", "\(body.count)"), closing: false))
            if !isHead { send(body.prefix(min(max(0, sentBytes), body.count))) }
            steps.append(.close)
        case let .closeAfterHeaders(status, headers, declaredLength):
            guard Self.isValid(status) else { return add(Self.invalidStatus(status)) }
            let framing = Self.framing(of: headers)
            send(head(status, headers, framing.isDeclared ? nil : ("Content-Length", "\(max(0, declaredLength))"), closing: false))
            steps.append(.close)
        case .close:
            steps.append(.close)
        case let .interimHeads(status, count, interval):
            for index in 0..<max(0, count) {
                if index > 0 { wait(interval) }
                send(Data("HTTP/1.1 \(status) Interim\r\n\r\n".utf8))
            }
            steps.append(.hold)
        case .neverRespond:
            steps.append(.hold)
        case let .raw(bytes):
            send(bytes)
            steps.append(.close)
        case let .redirect(location, status):
            add(.response(status: status, headers: [("Location", location)]))
        case let .generated(status, headers, length, content, chunked, chunkSize, interval):
            let producer = GeneratedProducer(content: content, length: length)
            let body = BodyStream(producer, chunked: chunked, pieceSize: chunkSize, interval: interval)
            addStream(status, headers, [], body, length: max(0, length), chunked: chunked)
        case let .gzip(status, headers, decodedLength, content, chunked, chunkSize, interval):
            let producer = GzipProducer(content: content, decodedLength: decodedLength)
            let body = BodyStream(producer, chunked: chunked, pieceSize: chunkSize, interval: interval)
            let encoding = [("Content-Encoding", "gzip")]
            addStream(status, headers, encoding, body, length: producer.compressedLength, chunked: chunked)
        case let .nestedGzip(layers, decodedLength, content):
            var producer: any BodyProducer = GzipProducer(content: content, decodedLength: decodedLength)
            for _ in 1..<max(1, layers) { producer = StoredGzipProducer(wrapping: producer) }
            let body = BodyStream(producer, chunked: true, pieceSize: 64 * 1024, interval: 0)
            let encoding = [("Content-Encoding", Array(repeating: "gzip", count: max(1, layers)).joined(separator: ", "))]
            addStream(200, [], encoding, body, length: 0, chunked: true)
        }
    }

    /// A reply whose body is produced while it is written.
    private mutating func addStream(
        _ status: Int, _ headers: [(String, String)], _ defaults: [(String, String)], _ body: BodyStream,
        length: Int64, chunked: Bool
    ) {
        guard Self.isValid(status) else { return add(Self.invalidStatus(status)) }
        var headers = headers
        for (name, value) in defaults + [("Content-Type", "application/octet-stream")]
        where !headers.contains(where: { Self.same($0.0, name) }) {
            headers.append((name, value))
        }
        let framing = Self.framing(of: headers)
        let added: (String, String)?
        if chunked {
            added = framing.hasTransferEncoding ? nil : ("Transfer-Encoding", "chunked")
        } else {
            if framing.hasTransferEncoding || framing.declaredLength.map({ $0 != length }) == true {
                closesAfter = true
            }
            added = framing.isDeclared || !Self.allowsBody(status) ? nil : ("Content-Length", "\(length)")
        }
        send(head(status, headers, added))
        if !isHead && Self.allowsBody(status) { steps.append(.stream(body)) }
    }

    private mutating func send(_ bytes: Data) {
        if !bytes.isEmpty { steps.append(.send(bytes)) }
    }

    private mutating func wait(_ seconds: Double) {
        // NaN, negative and zero mean no pause; +infinity is capped.
        if seconds > 0 { steps.append(.wait(min(seconds, Self.longestWait))) }
    }

    /// The status line and header block, ending with the blank line.
    private mutating func head(
        _ status: Int, _ headers: [(String, String)], _ framing: (String, String)?, closing: Bool = true
    ) -> Data {
        if headers.contains(where: { Self.same($0.0, "Connection") && $0.1.lowercased().contains("close") }) {
            closesAfter = true
        }
        var text = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
        for (name, value) in headers {
            text += "\(Self.clean(name)): \(Self.clean(value))\r\n"
        }
        if let (name, value) = framing { text += "\(name): \(value)\r\n" }
        if closing && closesAfter && !headers.contains(where: { Self.same($0.0, "Connection") }) {
            text += "Connection: close\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    private struct Framing {
        var contentLength: Int?
        var declaredLength: Int64? { contentLength.map(Int64.init) }
        var isDeclared = false
        var hasTransferEncoding = false
    }

    /// What framing headers the reply already sets.
    private static func framing(of headers: [(String, String)]) -> Framing {
        var framing = Framing()
        for (name, value) in headers {
            if Self.same(name, "Content-Length") {
                framing.isDeclared = true
                framing.contentLength = Int(value.trimmingCharacters(in: .whitespaces))
            } else if Self.same(name, "Transfer-Encoding") {
                framing.isDeclared = true
                framing.hasTransferEncoding = true
            }
        }
        return framing
    }

    private static func same(_ name: String, _ expected: String) -> Bool {
        name.caseInsensitiveCompare(expected) == .orderedSame
    }

    private static func clean(_ field: String) -> String {
        String(field.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }

    private static func isValid(_ status: Int) -> Bool { (100...999).contains(status) }

    private static func invalidStatus(_ status: Int) -> Reply {
        .text("LoopbackServer: the handler replied with invalid status \(status)", status: 500)
    }

    /// Statuses whose responses never carry a body (RFC 9110 §6.4.1).
    static func allowsBody(_ status: Int) -> Bool {
        !(100...199).contains(status) && status != 204 && status != 304
    }

    /// The standard reason phrase for common statuses, `"Status"` otherwise.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
