import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

extension URLRequest {
    /// The request's body as sent (empty when it has none).
    fileprivate var sentBody: Data { httpBody ?? Data() }
}

/// Redirects are decided by the session (`RedirectRules`, the redirector),
/// never by a transport (HTTPTransportConformance checks that a transport
/// reports a redirect and does not follow it): judged once, on MockTransport.
/// `/redirect?status=…` redirects to `/target`; what each hop sent is the
/// transport's record.
@Suite("Redirects: decided by the session, the same on every transport")
struct RedirectTests {
    /// A new fixture per test: scripted replies, and a session on them.
    let fixture = PolicyFixture()

    // The session does this because URLSession on Linux re-sends a POST
    // meeting a 307/308 with an empty body.
    @Test(arguments: [307, 308])
    func temporaryAndPermanentRedirectsKeepMethodAndBody(_ status: Int) async throws {
        let payload = Data(#"{"order":42}"#.utf8)
        let result = await response {
            fixture.session.request(fixture.url("/redirect?status=\(status)"), method: .post, headers: [.contentType("application/json")], body: payload)
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "target")
        #expect(fixture.requests.map { $0.url?.path } == ["/redirect", "/target"])
        let sent = try #require(fixture.requests.last)
        #expect(sent.httpMethod == "POST")
        #expect(sent.sentBody == payload)
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test(arguments: [(303, "POST"), (302, "POST"), (301, "POST"), (303, "PUT")])
    func seeOtherAndLegacyRedirectsOfAPOSTBecomeABodylessGET(_ status: Int, _ method: String) async throws {
        let result = await response {
            fixture.session.request(fixture.url("/redirect?status=\(status)"), method: HTTPMethod(rawValue: method),
                                    headers: [.contentType("text/plain")], body: Data("payload".utf8))
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "target")
        #expect(fixture.requests.map { $0.url?.path } == ["/redirect", "/target"])
        let sent = try #require(fixture.requests.last)
        #expect(sent.httpMethod == "GET")
        #expect(sent.sentBody.isEmpty && sent.httpBodyStream == nil)
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    // The session does this because URLSession on Linux sends Authorization
    // and Cookie to the other origin.
    @Test func aRedirectToAnotherOriginDropsCredentialHeaders() async throws {
        let headers: HTTPHeaders = [
            .authorization(bearerToken: "secret"), HTTPHeader(name: "Cookie", value: "session=1"),
            HTTPHeader(name: "Proxy-Authorization", value: "Basic eDp5"), HTTPHeader(name: "X-Trace", value: "7"),
        ]
        let away = fixture.otherURL("/target").absoluteString
        let result = await response {
            fixture.session.request(fixture.url("/redirect?to=\(away)"), headers: headers)
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "target")
        let first = try #require(fixture.requests.first)
        #expect(first.value(forHTTPHeaderField: "Authorization") == "Bearer secret", "the origin got them")
        let sent = try #require(fixture.requests.last)
        #expect(fixture.requests.count == 2)
        #expect(sent.url?.host == "other.invalid")
        #expect(sent.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(sent.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(sent.value(forHTTPHeaderField: "Proxy-Authorization") == nil)
        #expect(sent.value(forHTTPHeaderField: "X-Trace") == "7", "other headers follow")
    }

    /// A `Location` with a user name and password: the next hop goes to its
    /// host without them, so no `Authorization` the server chose is sent.
    /// Every spelling of a credential field goes: a dictionary assigned to
    /// `allHTTPHeaderFields` may hold several, which corelibs keeps apart,
    /// and removing one by name left the others for the other origin.
    @Test func everySpellingOfACredentialFieldIsDroppedForAnotherOrigin() throws {
        var sent = URLRequest(url: try #require(URL(string: "http://origin.test/a")))
        sent.httpMethod = "POST"
        sent.allHTTPHeaderFields = [
            "authorization": "Bearer a", "AUTHORIZATION": "Bearer b", "cookie": "s=1", "COOKIE": "s=2",
            "proxy-authorization": "Basic eDp5", "content-type": "text/plain", "CONTENT-TYPE": "text/html", "X-Trace": "7",
        ]
        let redirect = ResponseHead(
            url: try #require(sent.url), statusCode: 303, httpVersion: "HTTP/1.1",
            headers: HTTPHeaders(keepingDuplicates: [HTTPHeader(name: "Location", value: "http://elsewhere.test/b")])
        )
        let next = try #require(RedirectRules.nextRequest(after: sent, base: nil, response: redirect))
        #expect(next.allHTTPHeaderFields == ["X-Trace": "7"], "\(String(describing: next.allHTTPHeaderFields))")
        #expect(next.httpMethod == "GET")
    }

    @Test func credentialsInALocationAreNeverSent() async throws {
        let away = "http://attacker:chosen@other.invalid/target"
        let result = await response {
            fixture.session.request(fixture.url("/redirect?to=\(away)")).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "target")
        let sent = try #require(fixture.requests.last)
        #expect(fixture.requests.count == 2)
        #expect(sent.url?.host == "other.invalid")
        #expect(sent.url?.user == nil && sent.url?.password == nil, "\(String(describing: sent.url))")
        #expect(sent.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func aRedirectOnTheSameOriginKeepsCredentialHeaders() async throws {
        let headers: HTTPHeaders = [.authorization(bearerToken: "secret"), HTTPHeader(name: "Cookie", value: "session=1")]
        let result = await response {
            fixture.session.request(fixture.url("/redirect"), headers: headers).responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "target")
        #expect(fixture.requests.count == 2)
        let sent = try #require(fixture.requests.last)
        #expect(sent.url?.path == "/target")
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer secret")
        #expect(sent.value(forHTTPHeaderField: "Cookie") == "session=1")
    }

    @Test func doNotFollowDeliversTheRedirectResponse() async throws {
        let session = fixture.makeSession(redirectHandler: .doNotFollow)
        let result = await response { session.request(fixture.url("/redirect")).response(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.response?.statusCode == 302)
        #expect(result?.response?.value(forHTTPHeaderField: "Location") == "/target")
        #expect(fixture.requests.count == 1, "the redirect was not followed")
    }

    @Test func aRequestsRedirectorWinsOverTheSessions() async throws {
        let session = fixture.makeSession(redirectHandler: .doNotFollow)
        let result = await response {
            session.request(fixture.url("/redirect")).redirect(using: .follow)
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "target")
        #expect(fixture.requests.last?.url?.path == "/target")
    }

    @Test func modifyCanRewriteTheNextRequest() async throws {
        let seen = Recorder<Int>()
        let redirector = Redirector(behavior: .modify { next, response in
            seen.append(response.statusCode)
            var changed = next
            changed.setValue("yes", forHTTPHeaderField: "X-Redirected")
            return changed
        })
        let result = await response {
            fixture.session.request(fixture.url("/redirect")).redirect(using: redirector)
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "target")
        #expect(fixture.requests.first?.value(forHTTPHeaderField: "X-Redirected") == nil)
        #expect(fixture.requests.last?.value(forHTTPHeaderField: "X-Redirected") == "yes")
        #expect(seen.events == [302])
    }

    /// Alamofire's static spelling; `nil` from the closure delivers the redirect.
    @Test func modifyUsingIsTheStaticSpelling() async throws {
        let result = await response {
            fixture.session.request(fixture.url("/redirect")).redirect(using: .modify { _, _ in nil })
                .response(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.response?.statusCode == 302)
        #expect(fixture.requests.count == 1)
        guard case .modify? = Redirector.modify(using: { next, _ in next }).behavior as Redirector.Behavior? else {
            Issue.record("modify(using:) made another behaviour")
            return
        }
    }

    @Test func aRedirectLoopFailsWithTooManyRedirects() async throws {
        let result = await response { fixture.session.request(fixture.url("/redirect-loop")).response(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.urlError?.code == .httpTooManyRedirects)
        #expect(fixture.requests.count == Session.redirectLimit + 1)
    }

    @Test func theRequestPropertyShowsTheLastHop() async throws {
        let req = fixture.session.request(fixture.url("/redirect"))
        let result = await response { req.response(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.request?.url?.path == "/target")
        #expect(req.request?.url?.path == "/target")
        #expect(req.response?.statusCode == 200)
        #expect(req.retryCount == 0, "a redirect is not a retry")
    }
}
