import Foundation

/// Decodes a response body as text, choosing the encoding the way a browser would.
///
/// 1. `explicit`, when given, wins.
/// 2. Otherwise the `charset` parameter of `contentType`, when it names an encoding listed
///    in ``stringEncoding(forCharset:)``.
/// 3. Otherwise (no charset, or one this table does not know) a byte order mark picks
///    UTF-8 or UTF-16; without one, UTF-8; and if the body is not valid UTF-8, ISO-8859-1,
///    which accepts every byte sequence, so this step never fails.
///
/// A UTF-8 or UTF-16 byte order mark is dropped from the text. An empty body is `""`.
///
/// - Parameters:
///   - data: The body.
///   - explicit: The encoding the caller asked for, if any.
///   - contentType: The response's `Content-Type` header value, if any.
/// - Returns: The text, or `.responseSerializationFailed(reason: .stringEncodingFailed(encoding:))`
///   when the explicit or declared encoding cannot decode the body (on Linux that includes
///   encodings Foundation does not implement there, such as EUC-JP).
func decodeText(_ data: Data, explicit: String.Encoding?, contentType: String?) -> Result<String, HTTPError> {
    if let encoding = explicit ?? charset(fromContentType: contentType).flatMap(stringEncoding(forCharset:)) {
        guard let text = decodeStrictly(data, as: encoding) else {
            return .failure(.responseSerializationFailed(reason: .stringEncodingFailed(encoding: encoding)))
        }
        return .success(text)
    }
    if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]), let text = decodeStrictly(data, as: .utf16) {
        return .success(text)
    }
    if let text = decodeStrictly(data, as: .utf8) {
        return .success(text)
    }
    return .success(decodeLatin1(data))
}

/// The `charset` parameter of a `Content-Type` value, lower-cased, without quotes; `nil`
/// when absent or empty. The parameter name is case-insensitive and the value may be a
/// quoted string (RFC 9110 §5.6.6), e.g. `text/html; Charset="Shift_JIS"`.
///
/// - Parameter contentType: A `Content-Type` header value.
/// - Returns: The charset label, e.g. `"shift_jis"`.
func charset(fromContentType contentType: String?) -> String? {
    guard let contentType else { return nil }
    let scalars = Array(contentType.unicodeScalars)
    var index = scalars.firstIndex(of: ";") ?? scalars.endIndex  // skip the media type
    while index < scalars.endIndex {
        index += 1  // ";"
        var name = ""
        while index < scalars.endIndex, scalars[index] != "=", scalars[index] != ";" {
            name.unicodeScalars.append(scalars[index])
            index += 1
        }
        var value = ""
        if index < scalars.endIndex, scalars[index] == "=" {
            index += 1
            while index < scalars.endIndex, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
            if index < scalars.endIndex, scalars[index] == "\"" {
                index += 1
                while index < scalars.endIndex, scalars[index] != "\"" {
                    if scalars[index] == "\\", index + 1 < scalars.endIndex { index += 1 }
                    value.unicodeScalars.append(scalars[index])
                    index += 1
                }
                index = scalars[index...].firstIndex(of: ";") ?? scalars.endIndex  // drop the rest
            } else {
                while index < scalars.endIndex, scalars[index] != ";" {
                    value.unicodeScalars.append(scalars[index])
                    index += 1
                }
            }
        }
        let label = value.trimmingCharacters(in: .whitespaces)
        if name.trimmingCharacters(in: .whitespaces).lowercased() == "charset", !label.isEmpty {
            return label.lowercased()
        }
    }
    return nil
}

/// The `String.Encoding` for an IANA charset label (case-insensitive), or `nil` for a
/// label this table does not know.
///
/// Known: UTF-8; UTF-16 (byte order mark, else big-endian), UTF-16LE, UTF-16BE;
/// ISO-8859-1/Latin-1, ISO-8859-2; US-ASCII; windows-1250 to windows-1254; Shift_JIS
/// (and windows-31j/cp932); EUC-JP; ISO-2022-JP.
///
/// - Parameter charset: A label such as `"utf-8"` or `"Shift_JIS"`.
/// - Returns: The encoding.
func stringEncoding(forCharset charset: String) -> String.Encoding? {
    switch charset.trimmingCharacters(in: .whitespaces).lowercased() {
    case "utf-8", "utf8", "unicode-1-1-utf-8": return .utf8
    case "utf-16", "utf16", "unicode": return .utf16
    case "utf-16le": return .utf16LittleEndian
    case "utf-16be": return .utf16BigEndian
    case "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "latin1", "l1", "cp819", "ibm819", "iso-ir-100":
        return .isoLatin1
    case "iso-8859-2", "iso8859-2", "iso_8859-2", "latin2", "l2": return .isoLatin2
    case "us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us", "csascii": return .ascii
    case "windows-1250", "cp1250": return .windowsCP1250
    case "windows-1251", "cp1251": return .windowsCP1251
    case "windows-1252", "cp1252", "x-cp1252": return .windowsCP1252
    case "windows-1253", "cp1253": return .windowsCP1253
    case "windows-1254", "cp1254": return .windowsCP1254
    case "shift_jis", "shift-jis", "sjis", "x-sjis", "ms_kanji", "csshiftjis", "windows-31j", "cp932": return .shiftJIS
    case "euc-jp", "x-euc-jp", "cseucpkdfmtjapanese": return .japaneseEUC
    case "iso-2022-jp", "csiso2022jp": return .iso2022JP
    default: return nil
    }
}

/// Decodes `data` in `encoding`, or `nil` when it is not valid text in it. Checks what
/// Foundation on Linux lets through (an odd byte count in UTF-16) and drops byte order marks.
private func decodeStrictly(_ data: Data, as encoding: String.Encoding) -> String? {
    if data.isEmpty { return "" }
    switch encoding {
    case .utf8:
        return String(data: data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data, encoding: .utf8)
    case .utf16:
        if data.starts(with: [0xFF, 0xFE]) { return decodeStrictly(data.dropFirst(2), as: .utf16LittleEndian) }
        if data.starts(with: [0xFE, 0xFF]) { return decodeStrictly(data.dropFirst(2), as: .utf16BigEndian) }
        return decodeStrictly(data, as: .utf16BigEndian)
    case .utf16LittleEndian, .utf16BigEndian:
        guard data.count.isMultiple(of: 2) else { return nil }
        let bom: [UInt8] = encoding == .utf16LittleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]
        return String(data: data.starts(with: bom) ? data.dropFirst(2) : data, encoding: encoding)
    case .isoLatin1:
        return decodeLatin1(data)
    default:
        return String(data: data, encoding: encoding)
    }
}

/// ISO-8859-1: every byte is the Unicode scalar of the same value, so this never fails.
private func decodeLatin1(_ data: Data) -> String {
    var text = ""
    text.unicodeScalars.append(contentsOf: data.lazy.map { Unicode.Scalar($0) })
    return text
}
