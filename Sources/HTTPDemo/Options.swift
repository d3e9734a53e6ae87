import Foundation

/// The command line, parsed.
struct Options {
    static let defaultPage = "http://developer.hatenastaff.com/entry/2014/12/01/164046"
    static let defaultEndpoint = "https://b.hatena.ne.jp/entry/json/"

    var page = Options.defaultPage
    var endpoint: String?
    var json = false
    var verbose = false
    var offline = false
    var limit: Int?
    var timeout: Double = 30
    var width: Int?
    var help = false

    static let usage = """
    USAGE: HTTPDemo [options] [PAGE_URL]

    Fetches the Hatena Bookmark entry for PAGE_URL and prints its title,
    bookmark count and a table of bookmarks (date, user, tags, comment).
    PAGE_URL defaults to \(defaultPage)
    (the article about Alamofire's suspended queue, the trick this library is built on).

    OPTIONS:
      --offline         Serve an embedded sample entry from an in-process loopback
                        server and fetch it through the same URLSession path
                        (no internet needed; the output says it is sample data).
      --endpoint URL    The entry API base (default \(defaultEndpoint));
                        the page URL is appended as ?url=<percent-encoded>.
      --json            Print the raw JSON, pretty-printed, instead of the table.
      --limit N         Show at most N bookmarks.
      --timeout S       Give up after S seconds without data, or 10×S in all
                        (default 30).
      --width N         Fit every line in N columns, N ≥ 40 (default: the
                        terminal's width, else 100).
      --verbose         Show what each chained handler saw, in order, on stderr.
      --help            Show this help.

    EXIT CODES:
      0  success, also when the page has no bookmarks yet (the server
         answered null, an empty body or 204 No Content)
      2  bad command line
      3  invalid page or endpoint URL
      4  host unreachable (connection refused, unknown host, no network)
      5  timed out
      6  the server answered with an HTTP error status
      7  the response is not a valid entry: it is not JSON
      8  other network failure
      9  the response is JSON but not a Hatena Bookmark entry
         (for example an --endpoint that is not the entry API)
    """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        var positional: [String] = []
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h": help = true
            case "--json": json = true
            case "--verbose", "-v": verbose = true
            case "--offline": offline = true
            case "--endpoint": endpoint = try Self.value(for: argument, from: &remaining)
            case "--limit":
                let text = try Self.value(for: argument, from: &remaining)
                guard let value = Int(text), value >= 0 else { throw UsageError(description: "--limit needs a number ≥ 0, got '\(text)'") }
                limit = value
            case "--timeout":
                let text = try Self.value(for: argument, from: &remaining)
                guard let value = Double(text), value.isFinite, value > 0 else {
                    throw UsageError(description: "--timeout needs a number of seconds > 0, got '\(text)'")
                }
                timeout = value
            case "--width":
                let text = try Self.value(for: argument, from: &remaining)
                guard let value = Int(text), value >= EntryPrinter.minimumWidth else { throw UsageError(description: "--width needs a number ≥ 40, got '\(text)'") }
                width = value
            default:
                if argument.hasPrefix("-") && argument.count > 1 {
                    throw UsageError(description: "unknown option '\(argument)'")
                }
                positional.append(argument)
            }
        }
        guard positional.count <= 1 else {
            throw UsageError(description: "expected one PAGE_URL, got \(positional.count): \(positional.joined(separator: " "))")
        }
        if let page = positional.first { self.page = page }
        if offline, endpoint != nil {
            throw UsageError(description: "--offline and --endpoint cannot be used together")
        }
    }

    private static func value(for option: String, from remaining: inout ArraySlice<String>) throws(UsageError) -> String {
        guard let value = remaining.popFirst() else { throw UsageError(description: "\(option) needs a value") }
        return value
    }
}
