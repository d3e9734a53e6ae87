import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// The request as a `curl` command line, for debugging and bug reports.
    ///
    /// Includes the method, the session's additional headers, the request's
    /// headers and body; every argument is shell-quoted.
    ///
    /// - Warning: The command contains the request's secrets on purpose, so
    ///   that it reproduces the request: the URL's password, `Authorization`,
    ///   `Proxy-Authorization` and `Cookie` values, and the body. Never log it
    ///   or attach it to a bug report unedited; log ``description`` instead,
    ///   which hides them (see <doc:Security>).
    ///
    /// - Returns: The `curl` command line.
    public func cURLDescription() -> String {
        cURLCommand()
    }

    /// Hands ``cURLDescription()`` to `handler`, on `queue`, as Alamofire's
    /// `cURLDescription(on:calling:)` does (the request is built when it is
    /// created, so the command is ready at once).
    ///
    /// - Parameters:
    ///   - queue: Where `handler` runs (default `.main`).
    ///   - handler: Receives the command line.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func cURLDescription(on queue: DispatchQueue = .main, calling handler: @escaping @Sendable (String) -> Void) -> Self {
        let command = cURLCommand()
        queue.async { handler(command) }
        return self
    }

    private func cURLCommand() -> String {
        guard let urlRequest, let url = urlRequest.url else {
            return "$ curl # the request has no valid URL"
        }
        var arguments = ["$ curl -v"]
        let method = urlRequest.httpMethod ?? "GET"
        if method != "GET" { arguments.append("-X \(method)") }
        var headers: [(String, String)] = []
        for header in session.configuredHeaders + session.defaultHeaders.map({ (name: $0.name, value: $0.value) }) {
            headers.append((header.name, header.value))
        }
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
            headers.removeAll { $0.0.caseInsensitiveCompare(name) == .orderedSame }
            headers.append((name, value))
        }
        for (name, value) in headers.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            arguments.append("-H \(Self.shellQuoted("\(name): \(value)"))")
        }
        if let body = urlRequest.httpBody, !body.isEmpty {
            let text = String(decoding: body, as: UTF8.self)
            arguments.append("--data-raw \(Self.shellQuoted(text))")
        }
        arguments.append(Self.shellQuoted(url.absoluteString))
        return arguments.joined(separator: " \\\n\t")
    }

    /// `text` in single quotes, safe for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
