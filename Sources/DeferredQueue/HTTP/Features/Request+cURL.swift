import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// The request as a `curl` command line, for debugging and bug reports,
    /// in Alamofire's shape: `$ curl -v`, `-X` and the method, `-u` with the
    /// credential given to ``authenticate(username:password:persistence:)``,
    /// `-b` with the cookies, a `-H` for each other header field (the
    /// configuration's, the session's defaults, the request's), the body,
    /// and the URL, one per line.
    ///
    /// It describes the latest attempt as sent (adapted, with its cookies)
    /// once one was made, and the request as built before that. Every
    /// argument is in single quotes and the body is passed with `--data-raw`
    /// (Alamofire: double quotes and `-d`), so that a `$`, a backquote or a
    /// leading `@` in a value is not read by the shell or by curl: see
    /// MIGRATING.md.
    ///
    /// - Warning: The command contains the request's secrets on purpose, so
    ///   that it reproduces the request: the URL's password, the credential,
    ///   `Authorization`, `Proxy-Authorization` and cookie values, and the
    ///   body. Never log it or attach it to a bug report unedited; log
    ///   ``description`` instead, which hides them (see <doc:Security>).
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
    ///   - queue: Where `handler` runs.
    ///   - handler: Receives the command line.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func cURLDescription(on queue: DispatchQueue, calling handler: @escaping @Sendable (String) -> Void) -> Self {
        let command = cURLCommand()
        queue.async { handler(command) }
        return self
    }

    /// Hands ``cURLDescription()`` to `handler` off the main queue, as
    /// Alamofire's `cURLDescription(calling:)` does: on the queue
    /// ``serializationQueue`` names (Alamofire: its `underlyingQueue`; here
    /// the transport's queue stays free of caller code).
    ///
    /// - Parameter handler: Receives the command line.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func cURLDescription(calling handler: @escaping @Sendable (String) -> Void) -> Self {
        cURLDescription(on: serializationQueue, calling: handler)
    }

    private func cURLCommand() -> String {
        let (attempt, credential) = mutableState.withLock(owner: self) { ($0.request, $0.credential) }
        guard let sent = attempt ?? urlRequest, let url = sent.url else {
            return "$ curl # the request has no valid URL"
        }
        // A method is a token, whose characters include `` ` ``, `$` and `|`:
        // quoted unless it is letters, digits and hyphens, so that a pasted
        // command runs curl and nothing else.
        let method = sent.httpMethod ?? "GET"
        let plain = method.utf8.allSatisfy { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || ($0 | 0x20) &- 0x61 < 26 }
        var arguments = ["$ curl -v", "-X \(plain ? method : Self.shellQuoted(method))"]
        if let user = credential?.user, let password = credential?.password {
            arguments.append("-u \(Self.shellQuoted("\(user):\(password)"))")
        }
        var headers: [(name: String, value: String)] = core.configuredHeaders
        for header in core.defaultHeaders { headers.append((header.name, header.value)) }
        for (name, value) in sent.allHTTPHeaderFields ?? [:] {
            headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            headers.append((name, value))
        }
        let isCookie = { (header: (name: String, value: String)) in header.name.caseInsensitiveCompare("Cookie") == .orderedSame }
        // Before the first attempt the session has not added its cookies yet.
        if let cookies = headers.first(where: isCookie)?.value ?? (attempt == nil ? core.cookieStore?.cookieHeader(for: url) : nil) {
            arguments.append("-b \(Self.shellQuoted(cookies))")
        }
        for header in headers.filter({ !isCookie($0) }).sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) {
            arguments.append("-H \(Self.shellQuoted("\(header.name): \(header.value)"))")
        }
        if let body = sent.httpBody, !body.isEmpty {
            arguments.append("--data-raw \(Self.shellQuoted(String(decoding: body, as: UTF8.self)))")
        }
        arguments.append(Self.shellQuoted(url.absoluteString))
        return arguments.joined(separator: " \\\n\t")
    }

    /// `text` in single quotes, safe for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
