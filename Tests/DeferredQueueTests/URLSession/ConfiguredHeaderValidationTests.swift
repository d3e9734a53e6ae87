import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// URLSession adds a configuration's `httpAdditionalHeaders` itself, after the
/// session prepared the request: the session checks them once, and refuses
/// every request while they are invalid; a transport made with such a
/// configuration and handed to a session refuses every attempt itself.
@Suite("URLSession: the configuration's additional header fields are checked before sending")
struct ConfiguredHeaderValidationTests {
    @Test(arguments: [
        ["X-Default": "1\r\nX-Injected: 1"], ["X-Default": "\u{0}"], ["X-Default\r\nX-Injected": "1"], ["X Default": "1"],
        // URLSession would add these to every request whatever its body: a smuggled request, or a wait.
        ["Content-Length": "3"], ["content-length": "0"], ["Transfer-Encoding": "chunked"],
    ], [false, true])
    func invalidAdditionalHeadersFailEveryRequestUnsent(_ headers: [String: String], madeByTheCaller: Bool) async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = headers
        let session = madeByTheCaller
            ? Session(transport: URLSessionTransport(configuration: configuration))
            : Session(configuration: configuration)
        for path in ["/a", "/b"] {
            let result = await response { session.request(server.url(path)).responseData(queue: handlerQueue, completionHandler: $0) }
            guard case .urlRequestValidationFailed? = result?.error else {
                Issue.record("\(headers.keys.first?.debugDescription ?? ""): \(String(describing: result?.result))")
                return
            }
        }
        #expect(server.connectionCount == 0)
    }

    /// corelibs casts every name and value to `NSString` and traps on a
    /// number; the transport hands it their text.
    @Test func namesAndValuesThatAreNotStringsAreSentAsText() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["X-Number": 5, 7: "seven"]
        let result = await response {
            Session(configuration: configuration).request(server.url("/")).responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value?["headers"]["X-Number"].string == "5", "\(String(describing: result?.result))")
        #expect(result?.value?["headers"]["7"].string == "seven")
    }

    @Test func validAdditionalHeadersAreSent() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["X-Default": "tab\tinside"]
        let result = await response {
            Session(configuration: configuration).request(server.url("/")).responseJSON(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value?["headers"]["X-Default"].string == "tab\tinside")
    }

    /// What the check cannot reach: Foundation itself drops such a value when it is
    /// set with `setValue(_:forHTTPHeaderField:)` on Linux, before the request is
    /// handed over. `URLRequest.headers` keeps it, so it is refused instead.
    @Test func foundationsSetValueDropsALineBreakWhereHeadersKeepsIt() throws {
        var viaSetValue = URLRequest(url: try #require(URL(string: "http://127.0.0.1/")))
        viaSetValue.setValue("a\r\nb", forHTTPHeaderField: "Authorization")
        var viaHeaders = viaSetValue
        viaHeaders.headers.update(name: "Authorization", value: "a\r\nb")
        #if canImport(FoundationNetworking)
        #expect(viaSetValue.value(forHTTPHeaderField: "Authorization") == nil)
        #endif
        #expect(viaHeaders.value(forHTTPHeaderField: "Authorization") == "a\r\nb")
    }
}
