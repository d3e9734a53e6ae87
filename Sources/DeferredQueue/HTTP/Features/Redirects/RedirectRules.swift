import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the next request of a redirect is built (RFC 9110 §15.4, with the
/// method rewrites browsers and URLSession apply), transport-independent.
///
/// Why the session does this rather than the transport: URLSession on Linux
/// (swift-corelibs-foundation 6.3.1) re-sends a `POST` meeting a 307/308
/// without its body, sends `Authorization` and `Cookie` to another origin,
/// and does not send a cookie set by the redirect response on the next hop.
enum RedirectRules {
    /// The statuses that redirect (300 and 304 do not).
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Headers that must not reach another origin.
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// Headers that describe a body, dropped with it.
    static let bodyHeaders = ["Content-Type", "Content-Length", "Transfer-Encoding", "Content-Encoding"]

    /// The next request when `response` redirects `sent`; built from `base`
    /// (the attempt before session defaults and adapters). `nil` when the
    /// response is no redirect, its `Location` is not an http(s) URL, or it
    /// has more than one `Location`.
    static func nextRequest(after sent: URLRequest, base: URLRequest?, response: ResponseHead) -> URLRequest? {
        guard redirectStatuses.contains(response.statusCode),
              let location = soleLocation(of: response),
              let from = sent.url,
              let resolved = URL(string: location, relativeTo: from)?.absoluteURL,
              resolved.isHTTPURLWithHost
        else { return nil }
        let target = withoutSuppliedCredentials(resolved, location: location)
        var next = base ?? sent
        next.url = target
        let method = next.httpMethod ?? "GET"
        let becomesGET = (response.statusCode == 303 && method != "HEAD")
            || ([301, 302].contains(response.statusCode) && method == "POST")
        if becomesGET {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            removeFields(bodyHeaders, from: &next)
        }
        if !isSameOrigin(from, target) {
            removeFields(credentialHeaders, from: &next)
        }
        return next
    }

    /// The head's one `Location`; `nil` for none, or for two that differ
    /// (the field is a singleton, RFC 9110 §10.2.2: which one the server
    /// meant is unknown, and followed as one URL they named another). A
    /// head read off the wire shows each field (the same value repeated is
    /// one, as browsers take it); URLSession joins repeated fields with
    /// ", ", which a URL never holds unencoded.
    private static func soleLocation(of response: ResponseHead) -> String? {
        guard response.joinsRepeatedFields else {
            let values = response.values(forHTTPHeaderField: "Location")
            return values.first.flatMap { first in values.allSatisfy { $0 == first } ? first : nil }
        }
        guard let location = response.value(forHTTPHeaderField: "Location"), !location.contains(", ") else { return nil }
        return location
    }

    /// Removes every field of `request` named one of `names`, in any casing.
    /// (`setValue(nil, forHTTPHeaderField:)` removes one: a dictionary
    /// assigned to `allHTTPHeaderFields` may hold `authorization` and
    /// `AUTHORIZATION` both, and corelibs keeps them apart.)
    private static func removeFields(_ names: [String], from request: inout URLRequest) {
        guard let fields = request.allHTTPHeaderFields else { return }
        let removed = Set(names.map(HTTPHeaders.folded))
        guard fields.keys.contains(where: { removed.contains(HTTPHeaders.folded($0)) }) else { return }
        request.allHTTPHeaderFields = fields.filter { !removed.contains(HTTPHeaders.folded($0.key)) }
    }

    /// `target` without the user name and password its `Location` spelled
    /// out (`http://user:pass@host/`): a server never supplies credentials.
    /// libcurl sent them as `Basic` (AsyncHTTPClient did not), so a hostile
    /// server could sign the client in elsewhere as whom it chose. A relative
    /// `Location` keeps the credentials of the URL it resolves against: they
    /// are the caller's.
    private static func withoutSuppliedCredentials(_ target: URL, location: String) -> URL {
        guard let reference = URL(string: location), reference.host != nil,
              reference.user != nil || reference.password != nil,
              var components = URLComponents(url: target, resolvingAgainstBaseURL: false)
        else { return target }
        components.user = nil
        components.password = nil
        return components.url ?? target
    }

    /// Whether two URLs share scheme, host and port (RFC 6454).
    static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased()
            && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
