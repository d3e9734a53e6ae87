import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// The secrets these tests send; none may appear in any description.
private enum Secret {
    static let password = "S3cr3tPw"
    static let bearer = "T0kenValue"
    static let cookie = "C00kieValue"
    static let setCookie = "S3tC00kieValue"
    /// `user:S3cr3tPw` in Base64, as a `Basic` header would carry it.
    static let basic = Data("user:\(password)".utf8).base64EncodedString()
    static let all = [password, bearer, cookie, setCookie, basic]

    static func leaked(in text: String) -> [String] { all.filter { text.contains($0) } }
}

/// A server whose every reply sets a cookie, and a URL on it with a password.
private struct SecretServer {
    let server: LoopbackServer
    init() throws {
        server = try LoopbackServer { request in
            switch request.path {
            case "/close": return .close
            default:
                return .response(status: 200, headers: [("Set-Cookie", "sid=\(Secret.setCookie); Path=/"), ("Content-Type", "text/plain")],
                                 body: Data("hello".utf8))
            }
        }
    }
    func url(_ path: String) -> String {
        server.url(path).absoluteString.replacingOccurrences(of: "http://", with: "http://user:\(Secret.password)@")
    }
    let headers: HTTPHeaders = [
        .authorization(bearerToken: Secret.bearer), HTTPHeader(name: "Cookie", value: "theme=\(Secret.cookie)"),
    ]
}

@Suite("Secrets in descriptions: passwords, credentials and cookies read ***")
struct RedactedDescriptionTests {
    @Test func aURLKeepsItsUserAndHidesItsPassword() {
        #expect(Redaction.text("http://user:S3cr3tPw@host/path") == "http://user:***@host/path")
        #expect(Redaction.text("see \"https://user:p@ss:w@host:8080?q=1\" and ftp://a:b@c") == "see \"https://user:***@host:8080?q=1\" and ftp://a:***@c")
        #expect(Redaction.text("https://ghp_T0ken@github.com/x") == "https://***@github.com/x")
        #expect(Redaction.text("http://host/a@b and mailto:me@example.com") == "http://host/a@b and mailto:me@example.com")
        #expect(Redaction.text("no URL here") == "no URL here")
    }

    /// A token in the query or in a field of the API's own name was
    /// printed in every description and error.
    @Test func secretsInTheQueryAndInSecretNamedFieldsAreHidden() throws {
        #expect(Redaction.text("GET https://api.example/v1?access_token=T0kenValue&page=2&api_key=K3y#top (401)")
                    == "GET https://api.example/v1?access_token=***&page=2&api_key=***#top (401)")
        #expect(Redaction.text("\"https://maps.example/?key=K3y&author=ann&X-Amz-Signature=5ig\" failed")
                    == "\"https://maps.example/?key=***&author=ann&X-Amz-Signature=***\" failed")
        #expect(Redaction.text("https://host/?q=swift&flag") == "https://host/?q=swift&flag")
        for name in ["X-Api-Key", "X-Auth-Token", "X-Amz-Security-Token", "client_secret", "X-Session-Id", "Api_Key"] {
            #expect(Redaction.headerValue(named: name, "V4lue") == "***", "\(name)")
        }
        for name in ["Accept", "X-Request-Id", "Author", "X-Monkey", "Content-Type"] {
            #expect(Redaction.headerValue(named: name, "V4lue") == "V4lue", "\(name)")
        }
        let url = try #require(URL(string: "http://127.0.0.1:9/entry?access_token=\(Secret.bearer)"))
        let error = HTTPError.sessionTaskFailed(URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        #expect(Secret.leaked(in: error.description).isEmpty, "\(error.description)")
        #expect(Secret.leaked(in: error.localizedDescription).isEmpty)
        let headers: HTTPHeaders = [HTTPHeader(name: "X-Api-Key", value: Secret.bearer)]
        #expect(Secret.leaked(in: headers.description).isEmpty, "\(headers.description)")
    }

    @Test func httpErrorDescriptionsHideTheURLsPassword() throws {
        let url = try #require(URL(string: "http://user:\(Secret.password)@127.0.0.1:9/entry"))
        struct Adapter: Error, CustomStringConvertible { let url: URL; var description: String { "could not sign \(url)" } }
        let errors: [HTTPError] = [
            .sessionTaskFailed(URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url])),
            .invalidURL("http://user:\(Secret.password)@exa mple.com/"),
            .requestAdaptationFailed(error: Adapter(url: url)),
            .requestRetryFailed(retryError: Adapter(url: url), originalError: .sessionTaskFailed(URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url]))),
            .parameterEncodingFailed(reason: .malformedURL(url)),
            .multipartEncodingFailed(reason: .bodyPartURLInvalid(url: url)),
            .downloadedFileMoveFailed(error: DownloadRequest.DestinationError.notAFileURL(url), source: nil, destination: url),
        ]
        for error in errors {
            #expect(Secret.leaked(in: error.description).isEmpty, "\(error.kind): \(error.description)")
            #expect(Secret.leaked(in: error.localizedDescription).isEmpty)
        }
        #expect(errors[0].description.contains("http://user:***@127.0.0.1:9/entry"))
        #expect(HTTPError.ParameterEncodingFailureReason.malformedURL(url).description.contains("user:***@"))
    }

    @Test func dataResponsesAndRequestsDescribeThemselvesWithoutSecrets() async throws {
        let fixture = try SecretServer()
        let session = TestTransport.makeSession()
        let done = Latch()
        let box = Recorder<DataResponse<String, HTTPError>>()
        let request = session.request(fixture.url("/text"), headers: fixture.headers)
        request.responseString(queue: handlerQueue) { box.append($0); done.arrive() }
        #expect(await done.wait())
        let response = try #require(box.events.first)
        #expect(response.value == "hello")
        for text in [response.description, response.debugDescription, String(describing: response), String(reflecting: response),
                     request.description, String(reflecting: request)] {
            #expect(Secret.leaked(in: text).isEmpty, "\(text)")
        }
        #expect(response.description.contains("http://user:***@127.0.0.1"))
        #expect(response.debugDescription.contains("Authorization: Bearer ***"))
        #expect(response.debugDescription.contains("Cookie: ***"))
        #expect(response.debugDescription.contains("Set-Cookie: ***"))
        #expect(request.description.hasPrefix("GET http://user:***@127.0.0.1"))
        #expect(request.description.hasSuffix("(200)"))
        // The reproduction aid keeps them, on purpose (its documentation says so).
        #expect(request.cURLDescription().contains(Secret.password))
    }

    @Test func aFailedRequestsErrorHidesThePassword() async throws {
        let fixture = try SecretServer()
        let session = TestTransport.makeSession()
        let done = Latch()
        let box = Recorder<DataResponse<Data, HTTPError>>()
        session.request(fixture.url("/close")).responseData(queue: handlerQueue) { box.append($0); done.arrive() }
        #expect(await done.wait())
        let response = try #require(box.events.first)
        let error = try #require(response.error)
        for text in [error.description, response.description, response.debugDescription] {
            #expect(Secret.leaked(in: text).isEmpty, "\(text)")
        }
    }

    @Test func downloadAndStreamResponsesDescribeThemselvesWithoutSecrets() async throws {
        let fixture = try SecretServer()
        let session = TestTransport.makeSession()
        let download = await downloadResponse {
            session.download(fixture.url("/file"), headers: fixture.headers).responseURL(queue: handlerQueue, completionHandler: $0)
        }
        let response = try #require(download)
        if let file = response.fileURL { try? FileManager.default.removeItem(at: file) }
        #expect(response.error == nil)
        for text in [response.description, response.debugDescription, String(describing: response)] {
            #expect(Secret.leaked(in: text).isEmpty, "\(text)")
        }
        #expect(response.debugDescription.contains("Authorization: Bearer ***"))

        let done = Latch()
        let completions = Recorder<DataStreamRequest.Completion>()
        session.streamRequest(fixture.url("/stream"), headers: fixture.headers).responseStream(on: handlerQueue) { stream in
            if case .complete(let completion) = stream.event { completions.append(completion); done.arrive() }
        }
        #expect(await done.wait())
        let completion = try #require(completions.events.first)
        #expect(Secret.leaked(in: "\(completion)").isEmpty, "\(completion)")
        #expect("\(completion)".contains("user:***@"))
    }

    @Test func anEventMonitorThatLogsTheRequestLogsNoSecrets() async throws {
        let fixture = try SecretServer()
        let lines = Recorder<String>()
        let finished = Latch()
        let monitor = ClosureEventMonitor(
            requestDidFinish: { lines.append("finished \($0)"); finished.arrive() },
            requestDidReceiveResponse: { request, _ in lines.append("response \(request)") }
        )
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        session.request(fixture.url("/text"), headers: fixture.headers).responseData(queue: handlerQueue) { _ in }
        #expect(await finished.wait())
        #expect(!lines.events.isEmpty)
        for line in lines.events {
            #expect(Secret.leaked(in: line).isEmpty, "\(line)")
            #expect(line.contains("user:***@"))
        }
    }

    @Test func headersDescribeCredentialsAndCookiesAsMasked() {
        let headers = HTTPHeaders(keepingDuplicates: [
            .authorization(bearerToken: Secret.bearer), .authorization(username: "user", password: Secret.password),
            HTTPHeader(name: "proxy-authorization", value: "Basic \(Secret.basic)"), HTTPHeader(name: "COOKIE", value: Secret.cookie),
            HTTPHeader(name: "Set-Cookie", value: "sid=\(Secret.setCookie)"), .accept("application/json"),
        ])
        #expect(Secret.leaked(in: headers.description).isEmpty, "\(headers.description)")
        #expect(headers.description.contains("Authorization: Bearer ***"))
        #expect(headers.description.contains("proxy-authorization: Basic ***"))
        #expect(headers.description.contains("Accept: application/json"))
        #expect(Array(headers).first?.value == "Bearer \(Secret.bearer)", "the value itself is untouched")
    }
}
