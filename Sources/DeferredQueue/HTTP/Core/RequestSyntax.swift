import Foundation

/// The RFC 9110 syntax a request's method and header fields must have before
/// any byte of it is sent.
///
/// A transport writes the method and the fields into the request head as they
/// are: a line break in any of them ends that line early and starts one of
/// the sender's choosing (a header field, or after an empty line a second
/// request on the same connection). Foundation on Linux also drops a value
/// holding CR, LF or NUL that is set with `setValue(_:forHTTPHeaderField:)`
/// without a word, so an `Authorization` could vanish. The session checks
/// here instead, on every attempt, and refuses with
/// ``HTTPError/urlRequestValidationFailed(reason:)``.
enum RequestSyntax {
    /// Whether `text` is an RFC 9110 token: `1*tchar`, where `tchar` is an
    /// ASCII letter or digit or one of the symbols listed in `isTokenByte`.
    static func isToken(_ text: String) -> Bool {
        !text.utf8.isEmpty && allBytes(of: text, satisfy: isTokenByte)
    }

    /// Whether every UTF-8 byte of `text` satisfies `predicate`, read from
    /// the string's own storage when it has one (a loop over `String.UTF8View`
    /// costs several times more, on every field of every attempt).
    private static func allBytes(of text: String, satisfy predicate: (UInt8) -> Bool) -> Bool {
        if let all = text.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(predicate) }) { return all }
        return text.utf8.allSatisfy(predicate)
    }

    /// What a field value needs before it may be sent.
    enum ValueCheck: Equatable {
        /// Send it as it is.
        case valid
        /// Send it without its leading and trailing spaces and tabs (RFC 9110 §5.5:
        /// they are not part of the value, and every recipient drops them).
        case trimmed(String)
        /// It holds a control character other than the horizontal tab (CR, LF, NUL…) or DEL.
        case invalid
    }

    /// Checks a field value: any byte but the controls (U+0000–U+001F except the
    /// horizontal tab, and U+007F) is allowed, non-ASCII text included
    /// (sent as UTF-8, RFC 9110's `obs-text`).
    static func check(value: String) -> ValueCheck {
        let utf8 = value.utf8
        if !allBytes(of: value, satisfy: { !isForbiddenInValue($0) }) { return .invalid }
        guard let first = utf8.first, let last = utf8.last, isWhitespace(first) || isWhitespace(last) else { return .valid }
        let bytes = Array(utf8)
        let start = bytes.firstIndex { !isWhitespace($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isWhitespace($0) }.map { $0 + 1 } ?? start
        return .trimmed(String(decoding: bytes[start..<end], as: UTF8.self))
    }

    /// Checks `method` and `fields` as they will be sent, trimming the values
    /// that need it in place.
    ///
    /// - Throws: ``HTTPError/urlRequestValidationFailed(reason:)`` for the first
    ///   method, name or value found invalid.
    static func validate(method: String, fields: inout [String: String]) throws(HTTPError) {
        guard isToken(method) else { throw .urlRequestValidationFailed(reason: .invalidMethod(method)) }
        var trimmed: [(name: String, value: String)] = []
        for (name, value) in fields {
            guard isToken(name) else { throw .urlRequestValidationFailed(reason: .invalidHeaderName(name)) }
            switch check(value: value) {
            case .valid: continue
            case .trimmed(let value): trimmed.append((name, value))
            case .invalid: throw .urlRequestValidationFailed(reason: .invalidHeaderValue(name: name))
            }
        }
        for field in trimmed { fields[field.name] = field.value }
    }

    /// Checks a request handed to a transport without a session (see
    /// ``HTTPTransportAttempt/requestSyntaxViolation``): values are not trimmed.
    ///
    /// - Returns: The error for an invalid method, or for the first invalid name or value, or `nil`.
    static func violation(method: String, fields: [String: String]) -> HTTPError? {
        guard isToken(method) else { return .urlRequestValidationFailed(reason: .invalidMethod(method)) }
        return violation(in: fields.map { (name: $0.key, value: $0.value) })
    }

    /// Checks fields that are sent as they are (a URLSession configuration's
    /// `httpAdditionalHeaders`, which URLSession adds itself).
    ///
    /// - Returns: The error for the first invalid name or value, or `nil`.
    static func violation(in fields: [(name: String, value: String)]) -> HTTPError? {
        for (name, value) in fields {
            guard isToken(name) else { return .urlRequestValidationFailed(reason: .invalidHeaderName(name)) }
            if check(value: value) == .invalid { return .urlRequestValidationFailed(reason: .invalidHeaderValue(name: name)) }
        }
        return nil
    }

    /// Why a `URLSessionConfiguration`'s `httpAdditionalHeaders` may not be
    /// sent, if they may not: a field ``violation(in:)`` refuses, or one that
    /// frames the body, which URLSession would add to every request.
    static func configurationViolation(in fields: [(name: String, value: String)]) -> HTTPError? {
        if let violation = violation(in: fields) { return violation }
        let framing = fields.first {
            $0.name.caseInsensitiveCompare("Content-Length") == .orderedSame
                || $0.name.caseInsensitiveCompare("Transfer-Encoding") == .orderedSame
        }
        return framing.map { .urlRequestValidationFailed(reason: .framingFieldInConfiguration(name: $0.name)) }
    }

    /// `tchar` (RFC 9110 §5.6.2): an ASCII digit or letter, or one of the symbols below.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }
}
