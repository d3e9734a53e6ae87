import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Answering a `Basic` challenge is the session's (a transport reports a
/// 401, HTTPTransportConformance checks that it answers nothing): judged once,
/// on MockTransport. `/basic` answers `401 WWW-Authenticate: Basic` unless the
/// request carries `Authorization: Basic user:secret`; the attempts are the
/// transport's record. That a real transport delivers such a 401 at all,
/// without hanging or looping (URLSession on Linux, upstream #5456), stays
/// a socket suite, BasicAuthenticationSocketTests: the no-credential,
/// wrong-header and wrong-credential cases run there too, on every transport.
@Suite("Basic authentication: 401 challenges are delivered or answered, never hang")
struct BasicAuthenticationTests {
    /// A new fixture per test: scripted replies, and a session on them.
    let fixture = PolicyFixture()
    var session: Session { fixture.session }

    @Test func a401BasicChallengeWithoutCredentialsIsDelivered() async throws {
        let result = await response { session.request(fixture.url("/basic")).response(queue: handlerQueue, completionHandler: $0) }
        let response = try #require(result, "the request completed")
        #expect(response.response?.statusCode == 401)
        #expect(response.error == nil, "a 401 is a response, not a transport failure")
        #expect(response.data == Data("denied".utf8), "its body arrives too")
        #expect(fixture.requests.count == 1)
    }

    @Test func aWrongAuthorizationHeaderGetsThe401() async throws {
        let headers: HTTPHeaders = [.authorization(username: "user", password: "wrong")]
        let result = await response {
            session.request(fixture.url("/basic"), headers: headers).validate().responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.responseCode == 401)
        #expect(fixture.requests.count == 1)
    }

    @Test func credentialsAnswerTheChallengeOnce() async throws {
        let result = await response {
            session.request(fixture.url("/basic")).authenticate(username: "user", password: "secret")
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.value == "welcome")
        #expect(result?.request?.value(forHTTPHeaderField: "Authorization") == PolicyFixture.basicCredential)
        #expect(fixture.requests.count == 2, "one challenge, one authenticated request")
        #expect(fixture.requests.first?.value(forHTTPHeaderField: "Authorization") == nil, "sent only once challenged")
    }

    /// The answered challenge is an event (Alamofire's `taskDidReceiveChallenge`);
    /// a 401 nobody answers is not.
    @Test func anAnsweredChallengeIsToldToTheMonitors() async throws {
        let heard = Recorder<String>()
        let monitor = ClosureEventMonitor()
        monitor.requestDidReceiveChallenge = { _, response in heard.append("challenge:\(response.statusCode)") }
        monitor.requestDidReceiveResponse = { _, response in heard.append("response:\(response.statusCode)") }
        let monitored = Session(transport: fixture.transport, eventMonitors: [monitor])
        let answered = await response {
            monitored.request(fixture.url("/basic")).authenticate(username: "user", password: "secret")
                .responseString(queue: handlerQueue, completionHandler: $0)
        }
        #expect(answered?.value == "welcome")
        let unanswered = await response { monitored.request(fixture.url("/basic")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(unanswered?.response?.statusCode == 401)
        await drained(monitor.queue)
        #expect(heard.events == ["response:401", "challenge:401", "response:200", "response:401"])
    }

    /// Alamofire's `persistence:` is accepted and recorded; the credential
    /// still answers this request's challenge only, and is stored nowhere.
    @Test func aPermanentCredentialAnswersThisRequestOnlyAndIsNotStored() async throws {
        let request = session.request(fixture.url("/basic")).authenticate(username: "user", password: "secret", persistence: .permanent)
        let result = await response { request.responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value == "welcome")
        let again = await response { session.request(fixture.url("/basic")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(again?.response?.statusCode == 401, "another request does not inherit it")
        #expect(URLCredentialStorage.shared.allCredentials.isEmpty)
    }

    @Test func wrongCredentialsAreTriedOnceThenThe401IsDelivered() async throws {
        let result = await response {
            session.request(fixture.url("/basic")).authenticate(with: URLCredential(user: "user", password: "nope", persistence: .none))
                .response(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.response?.statusCode == 401)
        #expect(fixture.requests.count == 2, "no loop of retries")
    }

    @Test func credentialsAreNotSentToAnotherOrigin() async throws {
        let other = fixture.otherURL("/basic").absoluteString
        let result = await response {
            session.request(fixture.url("/redirect?to=\(other)")).authenticate(username: "user", password: "secret")
                .response(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.response?.statusCode == 401, "the other origin's challenge is not answered")
        let sentThere = fixture.requests(to: "/basic", host: "other.invalid")
        #expect(sentThere.count == 1)
        #expect(sentThere.first?.value(forHTTPHeaderField: "Authorization") == nil)
    }
}
