import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Synchronization

enum HTTPDemo {
    static let userAgent = "HTTPDemo/1.0 (DeferredQueue; +https://github.com/deferredqueue)"

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
            standardError("error: \(failure.message)\n")
            return failure.exitCode
        } catch {
            standardError("error: \(error)\n")
            return 8
        }
    }

    private static func fetch(_ options: Options) async throws {
        guard (try? options.page.asURL()) != nil else { throw DemoFailure.invalidURL("page URL", options.page) }
        var server: LoopbackServer?
        defer { server?.shutdown() }
        var endpoint = options.endpoint ?? Options.defaultEndpoint
        if options.offline {
            let offline = try OfflineServer.start()
            server = offline
            endpoint = offline.url("/entry/json/").absoluteString
            let notice = "(offline: an embedded sample entry served by an in-process loopback server — not live Hatena data)"
            // Keep stdout pure JSON for --json.
            if options.json { standardError(notice + "\n") } else { print(notice + "\n") }
        }
        let url = try entryURL(endpoint: endpoint, page: options.page)
        let entry = try await fetchEntry(from: url, options: options)
        switch entry {
        case .none:
            print("No bookmarks yet for \(options.page)")
        case .some(let fetched):
            if options.json {
                print(fetched.json.encoded(prettyPrinted: true))
            } else {
                let width = options.width ?? Terminal.columns() ?? 100
                print(EntryPrinter(width: width, limit: options.limit).render(fetched.entry))
            }
        }
    }

    /// `endpoint?url=<page, percent-encoded>`.
    static func entryURL(endpoint: String, page: String) throws -> String {
        guard var components = URLComponents(string: endpoint), (try? components.asURL()) != nil else {
            throw DemoFailure.invalidURL("endpoint URL", endpoint)
        }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let encoded = page.addingPercentEncoding(withAllowedCharacters: allowed) ?? page
        let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + "url=" + encoded
        guard let url = components.url else { throw DemoFailure.invalidURL("endpoint URL", endpoint) }
        return url.absoluteString
    }

    struct Fetched: Sendable {
        let entry: HatenaEntry
        let json: JSON
    }

    /// One request, three chained handlers; they run in order on the main queue.
    private static func fetchEntry(from url: String, options: Options) async throws -> Fetched? {
        let verbose = options.verbose
        let progress = ProgressIndicator(label: "fetching \(url)")
        defer { progress?.stop() }
        let result: Result<Fetched?, DemoFailure> = await withCheckedContinuation { continuation in
            let raw = RawBody()
            request(url, headers: [.userAgent(userAgent), .accept("application/json")], timeout: options.timeout)
                .response { response in
                    progress?.stop()
                    if verbose {
                        let status = response.response.map { "HTTP \($0.statusCode)" } ?? "no response"
                        let millis = Int(response.timing.duration * 1000)
                        standardError("[1] .response         \(status) in \(millis) ms\n")
                    }
                }
                .validate(statusCode: 200..<300)
                .responseString { response in
                    raw.text = response.value
                    if verbose {
                        let bytes = response.data?.count ?? 0
                        let summary = response.value.map { "\($0.count) characters" } ?? "\(response.error.map { "\($0)" } ?? "")"
                        standardError("[2] .responseString   \(bytes) bytes, \(summary)\n")
                    }
                }
                .responseDecodable(of: HatenaEntry?.self) { response in
                    continuation.resume(returning: decided(response, text: raw.text, url: url, verbose: verbose))
                }
        }
        return try result.get()
    }

    /// Turns the decodable handler's response into the demo's outcome.
    private static func decided(
        _ response: DataResponse<HatenaEntry?>, text: String?, url: String, verbose: Bool
    ) -> Result<Fetched?, DemoFailure> {
        switch response.result {
        case .success(.none):
            if verbose { standardError("[3] .responseDecodable null: no bookmarks\n") }
            return .success(nil)
        case .success(.some(let entry)):
            if verbose {
                standardError("[3] .responseDecodable \"\(entry.title ?? "")\", \(entry.count ?? 0) bookmarks, \(entry.bookmarks.count) listed\n")
            }
            let json = (try? JSON(parsing: response.data ?? Data())) ?? .null
            return .success(Fetched(entry: entry, json: json))
        case .failure(.responseSerializationFailed(reason: .inputDataNilOrZeroLength)):
            if verbose { standardError("[3] .responseDecodable empty body: no bookmarks\n") }
            return .success(nil)
        case .failure(let error):
            if verbose { standardError("[3] .responseDecodable failed: \(error)\n") }
            return .failure(DemoFailure(error, url: url))
        }
    }
}

/// The text the string handler saw, handed to the decodable handler after it.
final class RawBody: Sendable {
    private let storage = Mutex<String?>(nil)
    var text: String? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
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
            throw DemoFailure(exitCode: 8, message: "could not start the offline server: \(error)")
        }
    }
}

/// The terminal's width, when stdout is one.
enum Terminal {
    static func columns() -> Int? {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(text), value >= 40 { return value }
        var size = winsize()
        guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 else { return nil }
        return Int(size.ws_col)
    }
}
