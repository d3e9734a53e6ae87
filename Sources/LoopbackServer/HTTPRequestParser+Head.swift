import Foundation

extension HTTPRequestParser {
    /// Parses a request line and header block (CRLF or LF line ends).
    static func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> Head {
        // Split on LF bytes, not on Characters: "\r\n" is a single Character in Swift.
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { throw malformed("empty request") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]), !parts[1].isEmpty,
              parts[1].unicodeScalars.allSatisfy({ $0.value > 32 && $0.value != 127 })
        else { throw malformed("bad request line") }
        let version = parts[2]
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            if version.hasPrefix("HTTP/") { throw HTTPParseError(status: 505, reason: "only HTTP/1.x is supported") }
            throw malformed("bad HTTP version")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), isToken(line[..<colon]) else {
                throw malformed(line.first == " " || line.first == "\t" ? "obsolete line folding" : "bad header line")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            headers.append((String(line[..<colon]), value))
        }
        let options = Set(
            headers.filter { $0.name.lowercased() == "connection" }
                .flatMap { $0.value.lowercased().split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
        )
        let keepAlive = version == "HTTP/1.1" ? !options.contains("close") : options.contains("keep-alive")
        return Head(method: String(parts[0]), target: String(parts[1]), headers: headers, keepAlive: keepAlive)
    }

    // MARK: - Helpers

    static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    static func malformed(_ reason: String) -> HTTPParseError {
        HTTPParseError(status: 400, reason: reason)
    }

    static func bodyTooLarge(_ limit: Int) -> HTTPParseError {
        HTTPParseError(status: 413, reason: "request body larger than \(limit) bytes")
    }
}
