import Foundation

/// Splits a buffered multipart body (RFC 2046 §5.1, RFC 7578) into parts.
struct MultipartParser {
    private let body: [UInt8]
    /// `--boundary`.
    private let delimiter: [UInt8]

    init(body: Data, boundary: String) {
        self.body = [UInt8](body)
        self.delimiter = Array("--\(boundary)".utf8)
    }

    /// The `boundary` parameter of a multipart `Content-Type`.
    static func boundary(contentType: String?) throws(MultipartError) -> String {
        guard let contentType else { throw MultipartError(reason: "no Content-Type header") }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
        guard mediaType.hasPrefix("multipart/") else {
            throw MultipartError(reason: "Content-Type \(mediaType) is not multipart")
        }
        guard let boundary = parameters(of: contentType)["boundary"] else {
            throw MultipartError(reason: "no boundary parameter in Content-Type")
        }
        guard (1...70).contains(boundary.utf8.count) else {
            throw MultipartError(reason: "the boundary must have 1 to 70 characters")
        }
        return boundary
    }

    /// The `key=value` parameters after the first `;` of a header value; keys
    /// lowercased, quoted values unquoted (a backslash escapes the next character).
    static func parameters(of value: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(value)
        guard let first = rest.firstIndex(of: ";") else { return result }
        rest = rest[rest.index(after: first)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var parsed = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        parsed.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        parsed.append(character)
                    }
                }
                rest = rest.drop { $0 != ";" }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parsed = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if result[key] == nil { result[key] = parsed }
        }
        return result
    }

    /// The parts, in order.
    func parts() throws(MultipartError) -> [MultipartPart] {
        // The first delimiter starts the body or a line.
        var position: Int
        if starts(with: delimiter, at: 0) {
            position = delimiter.count
        } else if let found = find(Array("\r\n".utf8) + delimiter, from: 0) {
            position = found + 2 + delimiter.count
        } else {
            throw MultipartError(reason: "no boundary line in the body")
        }
        var parts: [MultipartPart] = []
        let separator = Array("\r\n".utf8) + delimiter
        while true {
            if starts(with: Array("--".utf8), at: position) { return parts }
            position = try skipLineEnd(after: position, what: "boundary")
            guard let headerEnd = find(Array("\r\n\r\n".utf8), from: position - 2) else {
                throw MultipartError(reason: "part \(parts.count + 1) is cut short in its header block")
            }
            let headers = try Self.headers(body[position..<max(position, headerEnd)], part: parts.count + 1)
            let contentStart = headerEnd + 4
            guard let contentEnd = find(separator, from: contentStart) else {
                throw MultipartError(reason: "part \(parts.count + 1) is cut short: no boundary after its content")
            }
            parts.append(MultipartPart(headers: headers, body: Data(body[contentStart..<contentEnd])))
            position = contentEnd + separator.count
        }
    }

    /// Skips optional spaces or tabs and the CRLF ending a boundary line.
    private func skipLineEnd(after position: Int, what: String) throws(MultipartError) -> Int {
        var index = position
        while index < body.count, body[index] == 32 || body[index] == 9 { index += 1 }
        guard starts(with: Array("\r\n".utf8), at: index) else {
            throw MultipartError(reason: index >= body.count ? "the body ends after a \(what)" : "a \(what) is not followed by CRLF")
        }
        return index + 2
    }

    /// The header fields of a part's header block (lines separated by CRLF, without the blank line).
    static func headers(
        _ bytes: ArraySlice<UInt8>, part: Int
    ) throws(MultipartError) -> [(name: String, value: String)] {
        guard !bytes.isEmpty else { return [] }
        var headers: [(name: String, value: String)] = []
        for line in String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw MultipartError(reason: "part \(part) has a bad header line: \(line.prefix(80))")
            }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return headers
    }

    private func starts(with pattern: [UInt8], at index: Int) -> Bool {
        index >= 0 && index + pattern.count <= body.count && body[index..<index + pattern.count].elementsEqual(pattern)
    }

    /// The index of the first occurrence of `pattern` at or after `start`.
    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first, pattern.count <= body.count else { return nil }
        var index = max(0, start)
        let last = body.count - pattern.count
        while index <= last {
            guard let candidate = body[index...last].firstIndex(of: first) else { return nil }
            if starts(with: pattern, at: candidate) { return candidate }
            index = candidate + 1
        }
        return nil
    }
}
