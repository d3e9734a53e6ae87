import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// An adapter that sends the request somewhere else.
private struct RetargetingAdapter: RequestAdapter {
    let url: URL

    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        var urlRequest = urlRequest
        urlRequest.url = url
        return urlRequest
    }
}

@Suite("Requests: the URL each attempt sends to")
struct RequestURLTests {
    /// Asks for `http://host:port/x`, and is redirected to it: both fail
    /// unsent with `invalidURL` naming it, with a description that says
    /// `reason`; the server sees the redirecting request alone.
    private func expectRefusedUnsent(_ host: String, saying reason: String) async throws {
        let server = try LoopbackServer { request in
            request.path == "/redirect" ? .response(status: 302, headers: [("Location", "http://\(host):\(request.header("Host")?.split(separator: ":").last ?? "")/x")], body: Data())
                : .text("reached")
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let target = "http://\(host):\(server.port)/x"
        let asked = await response { session.request(target).responseString(queue: handlerQueue, completionHandler: $0) }
        let redirected = await response { session.request(server.url("/redirect")).responseString(queue: handlerQueue, completionHandler: $0) }
        for result in [asked, redirected] {
            guard case .invalidURL(let named)? = result?.error else {
                Issue.record("\(TestTransport.name), \(host): \(String(describing: result?.result))")
                continue
            }
            #expect(named == target)
            #expect(result?.error?.description.contains(reason) == true, "\(String(describing: result?.error))")
        }
        #expect(server.requestCount == 1, "the redirecting request alone")
    }

    /// An adapter or a modifier may only send to `http(s)` with a host, as
    /// the request's own URL must: refused unsent as `invalidURL` (URLSession
    /// failed these as unsupported URLs, a transport error, after a task).
    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/", "http:///no-host"])
    func anAdapterOrModifierCannotLeaveHTTP(_ target: String) async throws {
        let server = try LoopbackServer { _ in .text("served") }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let url = try #require(URL(string: target))
        let adapted = await response {
            session.request(server.url("/"), interceptor: Interceptor(adapters: [RetargetingAdapter(url: url)]))
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        let modified = await response {
            session.request(server.url("/"), requestModifier: { $0.url = url })
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        for result in [adapted, modified] {
            guard case .invalidURL(let named)? = result?.error else {
                Issue.record("\(TestTransport.name), \(target): \(String(describing: result))")
                continue
            }
            #expect(named == url.absoluteString)
        }
        #expect(server.connectionCount == 0)
    }

    /// `Location` is a singleton field: with two, which one the server meant
    /// is unknown (both transports joined them into one URL, `/a,%20/b`,
    /// and followed it). The response is delivered as it is, unfollowed.
    @Test func aRedirectWithTwoLocationsIsNotFollowed() async throws {
        let server = try LoopbackServer { request in
            request.path == "/" ? .response(status: 302, headers: [("Location", "/a"), ("Location", "/b")], body: Data("moved".utf8)) : .text("followed")
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let result = await response { session.request(server.url("/")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.response?.statusCode == 302, "\(String(describing: result))")
        #expect(result?.value == "moved")
        #expect(server.requestCount == 1)
    }

    /// A port beyond 65535 parses but is no port: refused unsent as
    /// `invalidURL`, asked for or redirected to (AsyncHTTPClient trapped on
    /// an IP address's and sent a host name's to the port modulo 65536;
    /// URLSession failed them as unsupported URLs). A port too large for
    /// `Int` parses as none (AsyncHTTPClient would use the default port).
    @Test(arguments: [
        "http://127.0.0.1:65536/x", "http://localhost:84437/x", "http://[::1]:70000/x",
        "http://127.0.0.1:99999999999999999999/x", "http://[::1]:99999999999999999999999?q",
    ])
    func aPortBeyond65535IsRefused(_ target: String) async throws {
        let server = try LoopbackServer { _ in .response(status: 302, headers: [("Location", target)], body: Data()) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let asked = await response { session.request(target).responseString(queue: handlerQueue, completionHandler: $0) }
        let redirected = await response { session.request(server.url("/")).responseString(queue: handlerQueue, completionHandler: $0) }
        for result in [asked, redirected] {
            guard case .invalidURL(let named)? = result?.error else {
                Issue.record("\(TestTransport.name), \(target): \(String(describing: result))")
                continue
            }
            #expect(named == target)
        }
        #expect(server.connectionCount == 1, "the redirecting request alone")
    }

    /// A host that ends in a number is an IPv4 address in dotted decimal or
    /// nothing: `inet_aton`'s other forms name 127.0.0.1 unseen by a check
    /// of the host as text, and so do IPv6 literals that embed an IPv4
    /// address (mapped, `::ffff:…`, and the deprecated compatible `::…`).
    /// AsyncHTTPClient connected to them; corelibs refused them as
    /// unsupported URLs. Refused unsent as `invalidURL` on both, asked for
    /// or redirected to.
    @Test(arguments: [
        "2130706433", "0x7f.1", "127.1", "0177.0.0.1", "127.0.0.01", "127.0.0.1.1",
        "[::ffff:127.0.0.1]", "[::FFFF:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]", "[::127.0.0.1]",
        "[::ffff:127.0.0.1%251]", "[::127.0.0.1%25lo]",
    ])
    func anIPv4AddressNotInDottedDecimalIsRefused(_ host: String) async throws {
        try await expectRefusedUnsent(host, saying: "not an IPv4 address in dotted decimal")
    }

    /// A host written percent-encoded: Foundation decodes it before a
    /// transport sees it, `%00` into a NUL that a C resolver ends the name
    /// at (`127.0.0.1`), `%2F` into a slash. Refused unsent as `invalidURL`,
    /// asked for or redirected to, with a description that says why.
    @Test(arguments: ["127.0.0.1%00.evil", "127.0.0.1%2F.evil", "127%2E0.0.1", "%EF%BC%90x7f.1", "b%C3%BCcher.de", "[::1%2500%00]", "[fe80::1%25]"])
    func aPercentEncodedHostIsRefused(_ host: String) async throws {
        try await expectRefusedUnsent(host, saying: "is percent-encoded")
    }

    /// An IPv6 literal's zone (RFC 6874) is the one percent-encoding a host
    /// may have; a name written in Unicode is sent (Foundation gives its
    /// host encoded, and sends it in punycode).
    @Test(arguments: ["http://[fe80::1%25eth0]:8080/", "http://[fe80::1%25en0.1]/", "http://bücher.de/", "http://例え.jp/x", "http://u%40:p%25@bücher.de/"])
    func anIPv6ZoneOrANonASCIINameIsNoEncodedHost(_ target: String) throws {
        let url = try #require(URL(string: target))
        if case .refused = url.sendableForm { Issue.record("\(target) refused") }
    }

    /// An address a check of the host as text misreads: the unspecified
    /// address (`0.0.0.0/8`, `::`), which Linux connects to this machine, and
    /// an IPv6 literal not in its RFC 5952 form or with a zone off
    /// link-local (`[0:0:0:0:0:0:0:1]` is `::1`). Both transports reached a
    /// loopback server through `0.0.0.0`, AsyncHTTPClient through the IPv6
    /// spellings. Refused unsent, asked for or redirected to.
    @Test(arguments: [
        "0.0.0.0", "0.1.2.3", "0.0.0.0.", "[::]", "[0:0:0:0:0:0:0:0]", "[0:0:0:0:0:0:0:1]", "[::0:1]",
        "[0000::0001]", "[::0.0.0.1]", "[::1%251]", "[2001:DB8:0::1]",
    ])
    func anAddressTextWouldMisreadIsRefused(_ host: String) async throws {
        try await expectRefusedUnsent(host, saying: "is not sent: its host")
    }

    @Test(arguments: ["0.pool.ntp.org", "0.example", "10.0.0.1", "100.0.0.0", "::1", "2001:db8::1", "2001:DB8::1", "fe80::1%25eth0", "FE80::a%25en0", "2001:db8::a:1"])
    func anAddressWrittenAsItIsIsNotMisread(_ host: String) {
        #expect(!URL.isMisreadAddress(host), "\(host)")
    }

    /// Colons that are no port: userinfo's, an IPv6 literal's, an empty port.
    @Test(arguments: ["http://u:p@example.com/", "http://[::1]/", "http://[fe80::1]", "http://example.com:/x", "http://example.com?a:1", "http://example.com/a:1"])
    func colonsThatAreNoPortAreSent(_ target: String) throws {
        let url = try #require(URL(string: target))
        #expect(url.hasSendablePort, "\(target)")
    }

    @Test(arguments: ["127.0.0.1", "10.0.0.255", "0.0.0.0", "example.com", "1e100.net", "cafe.deadbeef", "::1", "::", "fe80::1", "64:ff9b::1.2.3.4", "1.2.3.4."])
    func aHostThatIsNoAmbiguousAddressIsSent(_ host: String) throws {
        let literal = host.contains(":") ? "[\(host)]" : host
        let url = try #require(URL(string: "http://\(literal):8080/"))
        #expect(!url.hasAmbiguousIPv4Host, "\(host)")
    }

    /// A scheme is case-insensitive (RFC 3986); corelibs URLSession refused
    /// `HTTP://` as an unsupported URL.
    @Test func anUpperCaseSchemeIsSentAsHTTP() async throws {
        let server = try LoopbackServer { .text($0.path) }
        defer { server.shutdown() }
        let url = server.url("/upper").absoluteString.replacingOccurrences(of: "http://", with: "HTTP://")
        let result = await response {
            TestTransport.makeSession().request(url).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "/upper", "\(TestTransport.name): \(String(describing: result))")
        #expect(result?.request?.url?.scheme == "http")
    }
}
