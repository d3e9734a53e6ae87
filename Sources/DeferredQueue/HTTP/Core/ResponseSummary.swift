import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The text responses and requests print for logs, in one shape, with
/// secrets hidden by ``Redaction``.
enum ResponseSummary {
    /// `GET https://user:***@example.com/ -> 200, 1532 bytes, 0.120s: success`.
    ///
    /// - Parameters:
    ///   - detail: What the response holds (`"1532 bytes"`, `"file /tmp/x"`), if anything.
    ///   - error: The failure, or `nil` for a success.
    static func line(
        request: URLRequest?, response: ResponseHead?, detail: String?, timing: ResponseTiming?, error: (any Error)?
    ) -> String {
        let status = response.map { String($0.statusCode) } ?? "no response"
        let details = [detail, timing.map { "\($0)" }].compactMap { $0 }.joined(separator: ", ")
        let outcome = error.map { "failure: \($0)" } ?? "success"
        return "\(target(of: request, response: response)) -> \(status)\(details.isEmpty ? "" : ", " + details): \(outcome)"
    }

    /// The request line and both header blocks, one field per line,
    /// credentials and cookies hidden; never a body (it may hold a token).
    static func debugText(request: URLRequest?, response: ResponseHead?, extra: [String], error: (any Error)?) -> String {
        var lines = ["[Request]: " + (request == nil ? "None" : target(of: request, response: response))]
        lines += fieldLines(request?.allHTTPHeaderFields ?? [:])
        if let response {
            lines.append("[Response]: \(response.statusCode)")
            lines += fieldLines(response.allHeaderFields.reduce(into: [:]) { fields, field in
                fields["\(field.key)"] = "\(field.value)"
            })
        } else {
            lines.append("[Response]: None")
        }
        lines += extra
        lines.append("[Result]: " + (error.map { "failure: \($0)" } ?? "success"))
        return lines.joined(separator: "\n")
    }

    /// `GET https://user:***@example.com/path`.
    static func target(of request: URLRequest?, response: ResponseHead?) -> String {
        let method = request?.httpMethod ?? "GET"
        let url = (request?.url ?? response?.url).map(Redaction.url) ?? "(no URL)"
        return "\(method) \(url)"
    }

    /// `    Name: value` lines, sorted by name, secret values hidden.
    private static func fieldLines(_ fields: [String: String]) -> [String] {
        fields.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "    \($0.key): \(Redaction.headerValue(named: $0.key, $0.value))" }
    }
}
