import Foundation

/// A `Set-Cookie` string as RFC 6265bis §5.6 parses it, before the storage
/// rules (``CookieRules``) judge it against the request that received it.
struct ParsedSetCookie: Sendable, Equatable {
    var name: String
    var value: String
    /// `Expires`, when it held a valid cookie-date.
    var expires: Date?
    /// `Max-Age` in seconds, when it held a valid number (clamped to `Int` range).
    var maxAge: Int?
    /// `Domain`, without a leading dot, lower-cased; `nil` when absent or empty.
    var domain: String?
    /// `Path`, when it starts with "/".
    var path: String?
    var secure = false
    var httpOnly = false
}

/// Parses `Set-Cookie` fields the way RFC 6265bis §5.6 says, itself, so the
/// acceptance rules do not depend on a platform's parser.
enum SetCookieParser {
    /// The largest name plus value, in octets; a larger cookie is ignored.
    static let maximumNameValueSize = 4096
    /// The largest attribute value, in octets; a larger attribute is ignored.
    static let maximumAttributeValueSize = 1024

    /// The cookies of `Set-Cookie` fields joined with ", " (an
    /// `HTTPURLResponse` joins repeated fields so), split again at each comma
    /// that starts a new `name=` pair; a comma inside an `Expires` date
    /// (`Wed, 09 Jun 2021 …`) is followed by no `=` before the next `;` and
    /// stays. A head read off the wire keeps each field apart and is not
    /// split (see `CookieStore.setCookies(in:)`).
    static func cookies(in fieldValue: String) -> [ParsedSetCookie] {
        splitJoinedFields(fieldValue).compactMap(parse)
    }

    /// The `Set-Cookie` strings that `fieldValue` joins.
    static func splitJoinedFields(_ fieldValue: String) -> [Substring] {
        var strings: [Substring] = []
        var start = fieldValue.startIndex
        var index = fieldValue.startIndex
        while index < fieldValue.endIndex {
            if fieldValue[index] == ",", startsCookie(fieldValue[fieldValue.index(after: index)...]) {
                strings.append(fieldValue[start..<index])
                start = fieldValue.index(after: index)
            }
            index = fieldValue.index(after: index)
        }
        strings.append(fieldValue[start...])
        return strings.filter { !$0.trimmingASCIIWhitespace().isEmpty }
    }

    /// Whether `rest` (the text after a comma) begins a new `name=value` pair.
    private static func startsCookie(_ rest: Substring) -> Bool {
        let pair = rest.prefix { $0 != ";" && $0 != "," }
        guard let equals = pair.firstIndex(of: "=") else { return false }
        return !pair[..<equals].trimmingASCIIWhitespace().isEmpty
    }

    /// One `Set-Cookie` string, or `nil` when RFC 6265bis says to ignore it.
    static func parse(_ string: Substring) -> ParsedSetCookie? {
        // Control characters other than tab make the whole string invalid.
        guard !string.unicodeScalars.contains(where: { ($0.value < 0x20 && $0.value != 0x09) || $0.value == 0x7F }) else {
            return nil
        }
        let parts = string.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        let pair = parts[0]
        let name: Substring
        let value: Substring
        if let equals = pair.firstIndex(of: "=") {
            name = pair[..<equals].trimmingASCIIWhitespace()
            value = pair[pair.index(after: equals)...].trimmingASCIIWhitespace()
        } else {
            name = ""
            value = pair.trimmingASCIIWhitespace()
        }
        guard !(name.isEmpty && value.isEmpty), name.utf8.count + value.utf8.count <= maximumNameValueSize else { return nil }
        // A nameless cookie must not pose as a prefixed one.
        if name.isEmpty, CookieRules.hasPrefix(value, "__Secure-") || CookieRules.hasPrefix(value, "__Host-") { return nil }
        var cookie = ParsedSetCookie(name: String(name), value: String(value))
        if parts.count > 1 {
            for attribute in parts[1].split(separator: ";") { apply(attribute, to: &cookie) }
        }
        return cookie
    }

    /// Applies one `cookie-av`; a later attribute of the same name wins.
    private static func apply(_ attribute: Substring, to cookie: inout ParsedSetCookie) {
        let name: Substring
        let value: Substring
        if let equals = attribute.firstIndex(of: "=") {
            name = attribute[..<equals].trimmingASCIIWhitespace()
            value = attribute[attribute.index(after: equals)...].trimmingASCIIWhitespace()
        } else {
            name = attribute.trimmingASCIIWhitespace()
            value = ""
        }
        guard value.utf8.count <= maximumAttributeValueSize else { return }
        switch name.lowercased() {
        case "expires":
            if let date = CookieDate.parse(value) { cookie.expires = date }
        case "max-age":
            if let seconds = parseMaxAge(value) { cookie.maxAge = seconds }
        case "domain":
            // An empty Domain is ignored (RFC 6265bis §5.6.3).
            var domain = value
            if domain.first == "." { domain = domain.dropFirst() }
            if !domain.isEmpty { cookie.domain = domain.lowercased() }
        case "path":
            cookie.path = value.first == "/" ? String(value) : nil
        case "secure":
            cookie.secure = true
        case "httponly":
            cookie.httpOnly = true
        default:
            break
        }
    }

    /// `Max-Age`: an optional "-" then digits only; too many digits saturate.
    private static func parseMaxAge(_ value: Substring) -> Int? {
        let negative = value.first == "-"
        let digits = negative ? value.dropFirst() : value
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let magnitude = digits.utf8.reduce(0) { result, digit in
            let (product, overflow) = result.multipliedReportingOverflow(by: 10)
            return overflow || product > Int.max - 9 ? Int.max : product + Int(digit - 0x30)
        }
        return negative ? -magnitude : magnitude
    }
}
