import Foundation

/// The file names a `Content-Disposition` header field offers (RFC 6266):
/// `filename*` (RFC 8187, formerly 5987: `UTF-8''%E2%82%AC%20rates.txt`)
/// first, then `filename`.
///
/// Only parses: the names are the server's to choose, so they go through
/// ``DownloadFileName`` before they name anything.
enum ContentDisposition {
    /// The names the field offers, preferred first; empty when it offers none.
    static func fileNames(in field: String) -> [String] {
        let parameters = self.parameters(of: field)
        var names: [String] = []
        if let extended = parameters["filename*"], let decoded = decodeExtendedValue(extended) { names.append(decoded) }
        if let plain = parameters["filename"] { names.append(plain) }
        return names
    }

    /// The parameters after the disposition type, names lowercased; the first
    /// of a repeated name wins. Quoted strings may hold `;` and `\"`.
    static func parameters(of field: String) -> [String: String] {
        var parameters: [String: String] = [:]
        var scalars = Substring(field).unicodeScalars[...]
        // Skip the disposition type.
        guard let firstSemicolon = scalars.firstIndex(of: ";") else { return [:] }
        scalars = scalars[scalars.index(after: firstSemicolon)...]
        while !scalars.isEmpty {
            let nameEnd = scalars.firstIndex { $0 == "=" || $0 == ";" } ?? scalars.endIndex
            let name = String(String.UnicodeScalarView(scalars[..<nameEnd])).trimmingCharacters(in: .whitespaces).lowercased()
            guard nameEnd < scalars.endIndex, scalars[nameEnd] == "=" else {
                scalars = nameEnd < scalars.endIndex ? scalars[scalars.index(after: nameEnd)...] : scalars[scalars.endIndex...]
                continue
            }
            var rest = scalars[scalars.index(after: nameEnd)...]
            while let first = rest.first, first == " " || first == "\t" { rest = rest.dropFirst() }
            let value: String
            (value, rest) = rest.first == "\"" ? quotedString(rest.dropFirst()) : token(rest)
            if !name.isEmpty, parameters[name] == nil { parameters[name] = value }
            // Skip to the next parameter.
            if let next = rest.firstIndex(of: ";") {
                scalars = rest[rest.index(after: next)...]
            } else {
                scalars = rest[rest.endIndex...]
            }
        }
        return parameters
    }

    /// A quoted string's content (after its opening quote) and what follows it.
    private static func quotedString(
        _ scalars: Substring.UnicodeScalarView.SubSequence
    ) -> (String, Substring.UnicodeScalarView.SubSequence) {
        var value = String.UnicodeScalarView()
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            if scalar == "\"" { return (String(value), scalars[index...]) }
            if scalar == "\\", index < scalars.endIndex {
                value.append(scalars[index])
                index = scalars.index(after: index)
            } else {
                value.append(scalar)
            }
        }
        return (String(value), scalars[scalars.endIndex...])
    }

    /// A token's text, up to `;`, trimmed, and what follows it.
    private static func token(
        _ scalars: Substring.UnicodeScalarView.SubSequence
    ) -> (String, Substring.UnicodeScalarView.SubSequence) {
        let end = scalars.firstIndex(of: ";") ?? scalars.endIndex
        let text = String(String.UnicodeScalarView(scalars[..<end])).trimmingCharacters(in: .whitespaces)
        return (text, scalars[end...])
    }

    /// An RFC 8187 `charset'language'value` decoded, for the charsets the RFC
    /// requires (UTF-8, ISO-8859-1); `nil` for any other.
    static func decodeExtendedValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let bytes = PercentDecoding.bytes(of: parts[2])
        switch parts[0].lowercased() {
        case "utf-8": return String(decoding: bytes, as: UTF8.self)
        case "iso-8859-1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }
}

/// Percent-decoding to bytes, once: `%2F` becomes a `/` byte, `%252F` the
/// text `%2F`; a `%` not followed by two hex digits stays as it is.
enum PercentDecoding {
    static func bytes(of text: some StringProtocol) -> [UInt8] {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
               let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
