import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// An adapter that adds a header field, through `URLRequest.headers` or by
/// assigning `allHTTPHeaderFields`.
private struct InjectingAdapter: RequestAdapter {
    let name: String
    let value: String
    var assignsAllFields = false

    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        var urlRequest = urlRequest
        if assignsAllFields {
            var fields = urlRequest.allHTTPHeaderFields ?? [:]
            fields[name] = value
            urlRequest.allHTTPHeaderFields = fields
        } else {
            urlRequest.headers.update(name: name, value: value)
        }
        return urlRequest
    }
}

/// Records each monitor event of the requests it watches.
private final class RefusalMonitor: EventMonitor {
    let queue = DispatchQueue(label: "tests.refusal-monitor")
    let events = Recorder<String>()
    let finished = Latch()

    func requestDidResume(_ request: Request) { events.append("resume") }
    func request(_ request: Request, didFailToCreateURLRequestWithError error: HTTPError) {
        events.append("failToCreate:\(error.kind)")
    }
    func request(_ request: Request, didReceive response: HTTPURLResponse) { events.append("response") }
    func requestDidFinish(_ request: Request) {
        events.append("finish")
        finished.arrive()
    }
}

/// Whether `error` is the refusal of a header field named `name`.
private func isRefusal(_ error: HTTPError?, ofHeader name: String) -> Bool {
    if case .urlRequestValidationFailed(.invalidHeaderValue(let refused))? = error { return refused == name }
    if case .urlRequestValidationFailed(.invalidHeaderName(let refused))? = error { return refused == name }
    return false
}

@Suite("Requests: the check runs on every attempt, for every kind of request and every path a field takes")
struct RequestInjectionPathsTests {
    static let badValue = "1\r\nX-Injected: 1"

    @Test func aRequestAdapterThatInjectsAFieldIsRefusedUnsent() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        for adapter in [
            InjectingAdapter(name: "X-Token", value: Self.badValue),
            InjectingAdapter(name: "X-Token", value: Self.badValue, assignsAllFields: true),
            InjectingAdapter(name: "X-Token\r\nX-Injected", value: "1", assignsAllFields: true),
        ] {
            let result = await response {
                session.request(server.url("/"), interceptor: Interceptor(adapters: [adapter]))
                    .responseData(queue: handlerQueue, completionHandler: $0)
            }
            #expect(isRefusal(result?.error, ofHeader: adapter.name), "\(TestTransport.name): \(String(describing: result?.result))")
        }
        #expect(server.connectionCount == 0)
    }

    @Test func aSessionInterceptorThatInjectsAFieldIsRefusedForEveryRequest() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession(interceptor: Interceptor(adapters: [InjectingAdapter(name: "X-Session", value: "\0")]))
        let first = await response { session.request(server.url("/")).responseData(queue: handlerQueue, completionHandler: $0) }
        let second = await response { session.request(server.url("/b")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(isRefusal(first?.error, ofHeader: "X-Session") && isRefusal(second?.error, ofHeader: "X-Session"))
        #expect(server.connectionCount == 0)
    }

    @Test func aPreparedURLRequestIsCheckedToo() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        var urlRequest = URLRequest(url: server.url("/"))
        urlRequest.httpMethod = "POST\r\nX-Injected: 1"
        let method = await response { TestTransport.makeSession().request(urlRequest).responseData(queue: handlerQueue, completionHandler: $0) }
        guard case .urlRequestValidationFailed(.invalidMethod)? = method?.error else {
            Issue.record("\(TestTransport.name): \(String(describing: method?.result))")
            return
        }
        urlRequest.httpMethod = "GET"
        urlRequest.headers = ["Authorization": "Bearer x\ny"]
        let header = await response { TestTransport.makeSession().request(urlRequest).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(isRefusal(header?.error, ofHeader: "Authorization"))
        #expect(server.connectionCount == 0)
    }

    @Test func encodedParametersDoNotBypassTheCheck() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let result = await response {
            TestTransport.makeSession().request(
                server.url("/"), method: HTTPMethod(rawValue: "PO ST"), parameters: ["q": "1"],
                encoder: JSONParameterEncoder.default, headers: ["X-Ok": "1"]
            ).responseData(queue: handlerQueue, completionHandler: $0)
        }
        guard case .urlRequestValidationFailed(.invalidMethod("PO ST"))? = result?.error else {
            Issue.record("\(TestTransport.name): \(String(describing: result?.result))")
            return
        }
        #expect(server.connectionCount == 0)
    }

    @Test func uploadsDownloadsAndStreamsAreCheckedToo() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let headers: HTTPHeaders = ["X-Bad": Self.badValue]
        let upload = await response { session.upload(Data("body".utf8), to: server.url("/"), headers: headers).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(isRefusal(upload?.error, ofHeader: "X-Bad"), "upload: \(String(describing: upload?.result))")
        let multipart = await response {
            session.upload(multipartFormData: { $0.append(Data("v".utf8), withName: "k") }, to: server.url("/"), headers: headers)
                .responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(isRefusal(multipart?.error, ofHeader: "X-Bad"), "multipart: \(String(describing: multipart?.result))")
        let download = await downloadResponse { session.download(server.url("/"), headers: headers).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(isRefusal(download?.error, ofHeader: "X-Bad"), "download: \(String(describing: download?.result))")
        #expect(download?.fileURL == nil)
        let completion = Recorder<DataStreamRequest.Completion>()
        let done = Latch()
        session.streamRequest(server.url("/"), headers: headers).responseStream(on: handlerQueue) { stream in
            if case .complete(let end) = stream.event {
                completion.append(end)
                done.arrive()
            }
        }
        #expect(await done.wait())
        #expect(isRefusal(completion.events.first?.error, ofHeader: "X-Bad"), "stream")
        #expect(server.connectionCount == 0)
    }

    @Test func aRedirectorThatAddsABadFieldIsRefusedBeforeTheSecondHop() async throws {
        let server = try LoopbackServer { request in
            request.path == "/start" ? .redirect(to: "/next") : .echo(request)
        }
        defer { server.shutdown() }
        let redirector = Redirector(behavior: .modify { request, _ in
            var request = request
            request.headers.update(name: "X-Hop", value: "2\r\n\r\nGET /smuggled HTTP/1.1")
            return request
        })
        let result = await response {
            TestTransport.makeSession().request(server.url("/start")).redirect(using: redirector)
                .responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(isRefusal(result?.error, ofHeader: "X-Hop"), "\(TestTransport.name): \(String(describing: result?.result))")
        #expect(server.requestCount == 1, "only the first hop reaches the server")
    }

    @Test func eventMonitorsSeeTheRefusalThenTheFinish() async throws {
        let server = try LoopbackServer { .echo($0) }
        defer { server.shutdown() }
        let monitor = RefusalMonitor()
        let session = TestTransport.makeSession(eventMonitors: [monitor])
        _ = await response { session.request(server.url("/"), headers: ["X-Bad": "\u{7F}"]).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(await monitor.finished.wait())
        #expect(monitor.events.events == ["resume", "failToCreate:urlRequestValidation", "finish"])
    }
}
