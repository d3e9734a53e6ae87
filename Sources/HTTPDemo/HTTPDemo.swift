import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

enum HTTPDemo {
    /// The demo ships with the library, so it carries the library's version.
    static let userAgent = "HTTPDemo/\(DeferredQueueInfo.version) DeferredQueue/\(DeferredQueueInfo.version) (+https://github.com/deferredqueue/DeferredQueue)"

    /// Runs the command and returns the process exit code.
    static func run(arguments: [String]) async -> Int32 {
        do {
            let options: Options
            do {
                options = try Options(arguments: arguments)
            } catch {
                throw DemoFailure.usage(error.description)
            }
            if options.help {
                print(Options.usage)
                return 0
            }
            try await fetch(options)
            return 0
        } catch let failure as DemoFailure {
            // Line by line: a usage message has a second line of its own.
            let lines = failure.message.split(separator: "\n", omittingEmptySubsequences: false).map(Terminal.printable)
            standardError("error: \(lines.joined(separator: "\n"))\n")
            return failure.exitCode
        } catch {
            standardError("error: the request did not complete\n")
            return DemoFailure.Code.network
        }
    }

    private static func fetch(_ options: Options) async throws {
        guard (try? options.page.asURL()) != nil else { throw DemoFailure.invalidURL("page URL", options.page) }
        var server: LoopbackServer?
        defer { server?.shutdown() }
        var endpoint = options.endpoint ?? Options.defaultEndpoint
        let printer = EntryPrinter(width: options.width ?? Terminal.columns(of: STDOUT_FILENO) ?? 100, limit: options.limit)
        if options.offline {
            let offline = try OfflineServer.start()
            server = offline
            endpoint = offline.url("/entry/json/").absoluteString
            let notice = printer.wrap("(offline: an embedded sample entry served by an in-process loopback server — not live Hatena data)")
            // Keep stdout pure JSON for --json.
            if options.json { standardError(notice + "\n") } else { print(notice + "\n") }
        }
        let url = try entryURL(endpoint: endpoint, page: options.page)
        let entry = try await fetchEntry(from: url, options: options)
        switch entry {
        case .none:
            print(printer.fit("No bookmarks yet for \(Terminal.printable(options.page))"))
        case .some(let fetched):
            print(options.json ? Terminal.escapingInvisibles(inJSON: fetched.json.encoded(prettyPrinted: true)) : printer.render(fetched.entry))
        }
    }

    /// `endpoint?url=<page, percent-encoded>`, keeping the endpoint's other
    /// query items (empty ones, as in `…/json/?` or `?&`, are dropped).
    static func entryURL(endpoint: String, page: String) throws -> String {
        guard var components = URLComponents(string: endpoint), (try? components.asURL()) != nil else {
            throw DemoFailure.invalidURL("endpoint URL", endpoint)
        }
        // Stricter than URLQueryItem's encoding, which leaves `&`, `=`, `+` and `?` as they are.
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let encoded = page.addingPercentEncoding(withAllowedCharacters: allowed) ?? page
        let kept = (components.percentEncodedQueryItems ?? []).filter { !$0.name.isEmpty && $0.name != "url" }
        components.percentEncodedQueryItems = kept + [URLQueryItem(name: "url", value: encoded)]
        guard let url = components.url else { throw DemoFailure.invalidURL("endpoint URL", endpoint) }
        return url.absoluteString
    }

    struct Fetched: Sendable {
        let entry: HatenaEntry
        let json: JSON
    }

    /// The most of a body the demo takes: an entry of thousands of bookmarks
    /// is a few hundred KiB, and decoding a body takes several times its size.
    static let maximumBodySize = 16 << 20

    /// One request, three chained handlers; they run in order on the main queue.
    private static func fetchEntry(from url: String, options: Options) async throws -> Fetched? {
        let verbose = options.verbose
        let progress = ProgressIndicator(label: "fetching \(DemoFailure.shown(url))")
        defer { progress?.stop() }
        let result: Result<Fetched?, DemoFailure> = await withCheckedContinuation { continuation in
            // `--timeout` without data, and ten times that in all: a server
            // that drips its body byte by byte would stay within the first.
            let session = Session(
                transport: URLSessionTransport(), maximumResponseBodySize: maximumBodySize, resourceTimeout: options.timeout * 10
            )
            session.request(url, headers: [.userAgent(userAgent), .accept("application/json")], timeout: options.timeout)
                .response { response in
                    progress?.stop()
                    if verbose {
                        let status = response.response.map { "HTTP \($0.statusCode)" } ?? "no response"
                        let millis = Int(response.timing.duration * 1000)
                        trace("[1] .response         \(status) in \(millis) ms")
                    }
                }
                .validate(statusCode: 200..<300)
                .responseString { response in
                    if verbose {
                        let bytes = response.data?.count ?? 0
                        let summary = response.value.map { "\($0.count) characters" } ?? "\(response.error.map { "\($0)" } ?? "")"
                        trace("[2] .responseString   \(bytes) bytes, \(summary)")
                    }
                }
                .responseDecodable(of: HatenaEntry?.self) { response in
                    continuation.resume(returning: decided(response, url: url, verbose: verbose))
                }
        }
        return try result.get()
    }

    /// One line of `--verbose` on stderr, made printable: it quotes the server.
    private static func trace(_ line: String) {
        standardError(Terminal.printable(line) + "\n")
    }

    /// Turns the decodable handler's response into the demo's outcome,
    /// deciding on the body itself: an empty body (as with 204) or `null`
    /// means no bookmarks yet; text that is not JSON, or JSON that is not an
    /// entry, each fail with their own exit code.
    private static func decided(
        _ response: DataResponse<HatenaEntry?, HTTPError>, url: String, verbose: Bool
    ) -> Result<Fetched?, DemoFailure> {
        if case .failure(let error) = response.result {
            guard case .responseSerializationFailed = error else {
                if verbose { trace("[3] .responseDecodable failed: \(error)") }
                return .failure(DemoFailure(error, url: url))
            }
        }
        let data = response.data ?? Data()
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            if verbose { trace("[3] .responseDecodable empty body: no bookmarks") }
            return .success(nil)
        }
        let json: JSON
        do {
            json = try JSON(parsing: data)
        } catch {
            if verbose { trace("[3] .responseDecodable not JSON: \(error)") }
            return .failure(.notJSON(url, error))
        }
        if json.isNull {
            if verbose { trace("[3] .responseDecodable null: no bookmarks") }
            return .success(nil)
        }
        if let problem = HatenaEntry.shapeProblem(in: json) {
            if verbose { trace("[3] .responseDecodable not an entry: \(problem)") }
            return .failure(.notAnEntry(url, problem))
        }
        switch response.result {
        case .success(.some(let entry)):
            if verbose {
                trace("[3] .responseDecodable \"\((entry.title ?? "").prefix(200))\", \(entry.count ?? 0) bookmarks, \(entry.bookmarks.count) listed")
            }
            return .success(Fetched(entry: entry, json: json))
        case .success(.none):
            return .success(nil)
        case .failure(let error):
            if verbose { trace("[3] .responseDecodable failed: \(error)") }
            return .failure(DemoFailure(error, url: url))
        }
    }
}

/// Serves the embedded sample entry for `--offline`.
enum OfflineServer {
    static func start() throws -> LoopbackServer {
        do {
            return try LoopbackServer { request in
                guard request.path == "/entry/json/" else { return .text("not found", status: 404) }
                return request.query["url"] == Options.defaultPage ? .json(SampleEntry.json) : .json("null")
            }
        } catch {
            throw DemoFailure(exitCode: DemoFailure.Code.network, message: "could not start the offline sample server on 127.0.0.1")
        }
    }
}
