import Foundation

/// Hides secrets in text the library renders for humans: descriptions of
/// errors, responses and requests, which end up in logs and bug reports.
///
/// The one place that knows what a secret looks like, so every description
/// redacts the same way:
/// - a URL's userinfo keeps its user name and loses its password
///   (`https://user:***@host/`); userinfo without a password is usually a
///   token on its own (`https://TOKEN@host/`) and is hidden whole (`***@host`);
/// - the values of `Authorization`, `Proxy-Authorization`, `Cookie` and
///   `Set-Cookie` fields are hidden (an `Authorization` value keeps its scheme:
///   `Bearer ***`), and so are those of fields whose name says they hold a
///   secret (``namesSecret(_:)``: `X-Api-Key`, `X-Auth-Token`…);
/// - in a URL's query, the values of parameters whose name says so
///   (`?access_token=***&page=2`).
///
/// ``Request/cURLDescription()`` deliberately does not use it: it exists to
/// reproduce the request, secrets included.
enum Redaction {
    /// What a hidden secret reads as.
    static let mask = "***"

    /// `url` as text, its password (or password-less userinfo) hidden.
    static func url(_ url: URL) -> String {
        text(url.absoluteString)
    }

    /// `text` with the userinfo password of every `scheme://user:password@`
    /// in it hidden, wherever it appears: a URL on its own, or one quoted in
    /// a message (an underlying error's description, an invalid URL string).
    static func text(_ text: String) -> String {
        guard text.contains("://"), text.contains("@") || text.contains("?") else { return text }
        var scalars = Array(text.unicodeScalars)
        var index = 0
        while let authority = nextAuthority(in: scalars, from: index) {
            let replaced = redactedAuthority(Array(scalars[authority]))
            scalars.replaceSubrange(authority, with: replaced)
            index = authority.lowerBound + replaced.count
            // The rest of the URL: its query's secrets.
            var end = index
            while end < scalars.count, !endsURL(scalars[end]) { end += 1 }
            if let question = scalars[index..<end].firstIndex(of: "?") {
                let query = redactedQuery(Array(scalars[(question + 1)..<end]))
                scalars.replaceSubrange((question + 1)..<end, with: query)
                end = question + 1 + query.count
            }
            index = end
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }

    /// The header field's value as a description may show it.
    ///
    /// - Parameters:
    ///   - name: The field name (any case).
    ///   - value: The field value.
    static func headerValue(named name: String, _ value: String) -> String {
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            // Keep the scheme ("Bearer", "Basic"): it says which credential
            // was sent without saying what it was.
            let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            return parts.count == 2 ? "\(parts[0]) \(mask)" : mask
        case "cookie", "set-cookie":
            return mask
        case let name where namesSecret(name):
            return mask
        default:
            return value
        }
    }

    /// Whether a header field or query parameter of this name (any case)
    /// holds a secret by its name: one that contains `token`, `secret`,
    /// `password`, `passwd`, `apikey`, `signature`, `credential` or
    /// `session`, or one of whose words (split at `-`, `_` and `.`) is
    /// `auth`, `oauth`, `key`, `sig` or `jwt` (`X-Api-Key`, `client_secret`,
    /// `X-Amz-Signature`; not `author` or `monkey`).
    static func namesSecret(_ name: String) -> Bool {
        let name = name.lowercased()
        if secretNameParts.contains(where: name.contains) { return true }
        return name.split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == "." }).contains { secretNameWords.contains(String($0)) }
    }

    private static let secretNameParts = ["token", "secret", "password", "passwd", "apikey", "signature", "credential", "session"]
    private static let secretNameWords: Set = ["auth", "oauth", "key", "sig", "jwt"]

    /// A query (after `?`, up to a `#`) with the values of secret-named parameters masked.
    private static func redactedQuery(_ query: [Unicode.Scalar]) -> [Unicode.Scalar] {
        let fragment = query.firstIndex(of: "#") ?? query.count
        var result: [Unicode.Scalar] = []
        for (number, pair) in query[..<fragment].split(separator: "&", omittingEmptySubsequences: false).enumerated() {
            if number > 0 { result.append("&") }
            guard let equals = pair.firstIndex(of: "="),
                  namesSecret(String(String.UnicodeScalarView(pair[..<equals])).removingPercentEncoding ?? "")
            else {
                result.append(contentsOf: pair)
                continue
            }
            result.append(contentsOf: pair[...equals])
            result.append(contentsOf: mask.unicodeScalars)
        }
        result.append(contentsOf: query[fragment...])
        return result
    }

    /// Where a URL ends in running text: whitespace, and the quotes and brackets around it.
    private static func endsURL(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\"", "'", "<", ">", "`": return true
        default: return scalar.properties.isWhitespace || scalar.value < 0x20
        }
    }

    /// The range of the next `//authority` (after `scheme:`) at or after `start`.
    private static func nextAuthority(in scalars: [Unicode.Scalar], from start: Int) -> Range<Int>? {
        var index = start
        while index + 2 < scalars.count {
            defer { index += 1 }
            guard scalars[index] == ":", scalars[index + 1] == "/", scalars[index + 2] == "/" else { continue }
            guard index > 0, isSchemeCharacter(scalars[index - 1]) else { continue }
            let begin = index + 3
            var end = begin
            while end < scalars.count, !endsAuthority(scalars[end]) { end += 1 }
            return begin..<end
        }
        return nil
    }

    /// The authority with its userinfo's secret part masked: everything up to
    /// the last `@` is userinfo (a password may hold a raw `@`).
    private static func redactedAuthority(_ authority: [Unicode.Scalar]) -> [Unicode.Scalar] {
        guard let at = authority.lastIndex(of: "@") else { return authority }
        let userinfo = authority[..<at]
        let kept: [Unicode.Scalar]
        if let colon = userinfo.firstIndex(of: ":") {
            kept = Array(userinfo[...colon]) + Array(mask.unicodeScalars)
        } else {
            kept = Array(mask.unicodeScalars)
        }
        return kept + Array(authority[at...])
    }

    private static func isSchemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || scalar == "+" || scalar == "-" || scalar == "."
    }

    /// Where an authority ends: its delimiters (RFC 3986 §3.2), and in
    /// running text whitespace and the quotes and brackets around a URL.
    private static func endsAuthority(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "/", "?", "#", "\"", "'", "<", ">", "`", "\\": return true
        default: return scalar.properties.isWhitespace || scalar.value < 0x20
        }
    }
}
