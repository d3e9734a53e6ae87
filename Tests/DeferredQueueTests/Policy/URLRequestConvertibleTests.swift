import DeferredQueue
import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// A router, as Alamofire users write one.
private enum Router: URLRequestConvertible, Equatable {
    case entry(id: Int)
    case publish(title: String)
    case broken
    case local

    func asURLRequest() throws -> URLRequest {
        switch self {
        case .entry(let id):
            var request = URLRequest(url: URL(string: "http://api.invalid/entries/\(id)")!)
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            return request
        case .publish(let title):
            var request = URLRequest(url: URL(string: "http://api.invalid/entries")!)
            request.httpMethod = "POST"
            request.setValue(title, forHTTPHeaderField: "X-Title")
            return request
        case .broken:
            throw TestError(7)
        case .local:
            return URLRequest(url: URL(fileURLWithPath: "/etc/passwd"))
        }
    }
}

@Suite("URLRequestConvertible: a router works with every factory, and a failing one sends nothing")
struct URLRequestConvertibleTests {
    private let transport = MockTransport { request in
        request.url?.path == "/entries/1" ? .json(#"{"id":1}"#) : .chunks([Data("a".utf8), Data("b".utf8)])
    }

    /// `convertible` gives back what the request was made from, as Alamofire's.
    @Test func aRequestSaysWhatItWasMadeFrom() throws {
        let session = Session(transport: transport)
        #expect(session.request(Router.entry(id: 1)).convertible as? Router == .entry(id: 1))
        #expect(session.upload(Data("x".utf8), with: Router.publish(title: "t")).convertible as? Router == .publish(title: "t"))
        #expect(session.streamRequest(Router.entry(id: 2)).convertible as? Router == .entry(id: 2))
        #expect(session.request(Router.broken).convertible as? Router == .broken, "kept though it could not be built")
        let fromURL = session.request("http://api.invalid/items", parameters: ["a": "1"])
        #expect((fromURL.convertible as? URLRequest)?.url?.absoluteString == "http://api.invalid/items?a=1", "the request as built")
        let unbuildable = session.request("not a url")
        #expect(throws: HTTPError.self) { _ = try unbuildable.convertible.asURLRequest() }
    }

    @Test func everyFactoryTakesARouter() async throws {
        let session = Session(transport: transport)
        let entry = try await session.request(Router.entry(id: 1)).serializingJSON().value
        #expect(entry["id"] == 1)
        let file = try await session.download(Router.entry(id: 1)).serializingDownloadedFileURL().value
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Data(contentsOf: file) == Data(#"{"id":1}"#.utf8))
        _ = try await session.upload(Data("body".utf8), with: Router.publish(title: "hello")).serializingData().value
        let partFile = FileManager.default.temporaryDirectory.appendingPathComponent("convertible-\(UUID().uuidString)")
        try Data("from disk".utf8).write(to: partFile)
        defer { try? FileManager.default.removeItem(at: partFile) }
        _ = try await session.upload(partFile, with: Router.publish(title: "file")).serializingData().value
        var streamed = Data()
        for try await chunk in session.streamRequest(Router.publish(title: "stream")).streamingData() { streamed += chunk }
        #expect(streamed == Data("ab".utf8))

        let sent = transport.requests
        try #require(sent.count == 5)
        #expect(sent[0].value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(sent[2].httpMethod == "POST" && sent[2].value(forHTTPHeaderField: "X-Title") == "hello")
        #expect(sent[2].httpBody == Data("body".utf8))
        #expect(transport.attempts[3].bodyFile == partFile)
        #expect(sent[4].value(forHTTPHeaderField: "X-Title") == "stream")
    }

    @Test func aRouterThatThrowsSendsNothing() async throws {
        let session = Session(transport: transport)
        do {
            _ = try await session.request(Router.broken).serializingData().value
            Issue.record("a throwing router must fail the request")
        } catch let error as HTTPError {
            if case .createURLRequestFailed(let underlying) = error {
                #expect(underlying as? TestError == TestError(7))
            } else {
                Issue.record("got \(error)")
            }
            #expect("\(error)".contains("URLRequestConvertible"))
        }
        await #expect(throws: HTTPError.self) { try await session.download(Router.broken).serializingDownloadedFileURL().value }
        await #expect(throws: HTTPError.self) { try await session.upload(Data(), with: Router.broken).serializingData().value }
        #expect(transport.requests.isEmpty)
    }

    @Test func aRouterToAFileURLIsRefused() async throws {
        let session = Session(transport: transport)
        let result = await session.request(Router.local).serializingData().result
        if case .failure(HTTPError.invalidURL(let url)) = result {
            #expect(url.hasPrefix("file://"))
        } else {
            Issue.record("got \(result)")
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func aURLRequestIsItsOwnConvertible() {
        let request = URLRequest(url: URL(string: "http://api.invalid/")!)
        #expect(request.asURLRequest() == request)
        #expect(Router.entry(id: 2).urlRequest?.url?.path == "/entries/2")
        #expect(Router.broken.urlRequest == nil)
    }
}
