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

    /// `downloadable` says what a download was made from, as Alamofire's.
    @Test func aDownloadSaysWhatItWasMadeFrom() throws {
        let session = Session(transport: transport)
        guard case .request(let router) = session.download(Router.entry(id: 3)).downloadable else {
            Issue.record("a download made from a router")
            return
        }
        #expect(router as? Router == .entry(id: 3))
        guard case .request(let built) = session.download("http://api.invalid/file").downloadable else {
            Issue.record("a download made from a URL")
            return
        }
        #expect((built as? URLRequest)?.url?.absoluteString == "http://api.invalid/file")
        let garbage = Data("not resume data".utf8)
        guard case .resumeData(let data) = session.download(resumingWith: garbage).downloadable else {
            Issue.record("a download made from resume data, even data that is not")
            return
        }
        #expect(data == garbage)
    }

    /// `upload` makes the body the request sends, as Alamofire's; `fileManager`
    /// is the one given to the factory.
    @Test func anUploadSaysWhatMakesItsBodyAndWhichFileManagerItHas() throws {
        let session = Session(transport: transport)
        let manager = FileManager()
        let data = session.upload(Data("x".utf8), with: Router.publish(title: "t"), fileManager: manager)
        #expect(data.fileManager === manager)
        #expect(try data.upload.createUploadable() == .data(Data("x".utf8)))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("uploadable-\(UUID().uuidString)")
        try Data("on disk".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fileUpload = session.upload(file, to: "http://api.invalid/files")
        #expect(fileUpload.fileManager === FileManager.default)
        #expect(try fileUpload.upload.createUploadable() == .file(file, shouldRemove: false))
        let form = session.upload(multipartFormData: { $0.append(Data("v".utf8), withName: "k") }, with: Router.publish(title: "f"))
        guard case .data(let encoded) = try form.upload.createUploadable() else {
            Issue.record("a small form is encoded in memory")
            return
        }
        #expect(String(decoding: encoded, as: UTF8.self).contains("name=\"k\""))
        #expect(try UploadRequest.Uploadable.data(Data("y".utf8)).createUploadable() == .data(Data("y".utf8)))
    }

    /// Both multipart factories take a router; the form's `Content-Type` is
    /// set unless the router sets one.
    @Test func formsTakeARouterToo() async throws {
        let session = Session(transport: transport)
        _ = try await session.upload(multipartFormData: { $0.append(Data("v".utf8), withName: "k") }, with: Router.publish(title: "form"))
            .serializingData().value
        let form = MultipartFormData()
        form.append(Data("w".utf8), withName: "j")
        _ = try await session.upload(multipartFormData: form, with: Router.publish(title: "built"), usingThreshold: 0)
            .serializingData().value
        let sent = transport.requests
        try #require(sent.count == 2)
        #expect(sent.map { $0.value(forHTTPHeaderField: "X-Title") } == ["form", "built"])
        #expect(sent[0].value(forHTTPHeaderField: "Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(sent[1].value(forHTTPHeaderField: "Content-Type") == form.contentType)
        #expect(transport.attempts[1].bodyFile != nil, "over its threshold: sent from a file")
    }

    /// A retry calls `asURLRequest()` again, as Alamofire's does: a router
    /// that stamps or signs its requests stamps the retry afresh. A form
    /// upload's rebuilt request gets the form's `Content-Type` again.
    @Test func aRetryRebuildsTheRequestFromItsConvertible() async throws {
        let transport = MockTransport { request in
            ["/first", "/form"].contains(request.url?.path ?? "") ? .text("busy", status: 503) : .json(#"{"ok":true}"#)
        }
        let session = Session(transport: transport, retryPolicy: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.001))
        let sequence = Sequenced(paths: ["/first", "/second"])
        let request = session.request(sequence)
        _ = try await request.serializingData().value
        #expect(transport.requests.map { $0.url?.path } == ["/first", "/second"])
        #expect(sequence.calls == 2, "once as the request was made, once for the retry")

        let form = Sequenced(paths: ["/form", "/form-again"])
        _ = try await session.upload(multipartFormData: { $0.append(Data("v".utf8), withName: "k") }, with: form)
            .serializingData().value
        let sent = transport.requests.suffix(2)
        #expect(sent.map { $0.url?.path } == ["/form", "/form-again"])
        #expect(sent.allSatisfy { $0.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("multipart/form-data") == true })
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

/// A convertible that gives the next of its paths each time it is asked
/// (the last one from then on), as Alamofire's tests' endpoint sequences do.
private final class Sequenced: URLRequestConvertible, Sendable {
    private let paths: [String]
    private let asked = Counter()

    init(paths: [String]) {
        self.paths = paths
    }

    var calls: Int { asked.count }

    func asURLRequest() throws -> URLRequest {
        let index = min(asked.increment() - 1, paths.count - 1)
        return URLRequest(url: URL(string: "http://api.invalid\(paths[index])")!)
    }
}
