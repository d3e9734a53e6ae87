import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("Request event streams and async onHTTPResponse")
struct EventStreamTests {
    /// A new session per test, on the transport under test (see TestTransport).
    let session = TestTransport.makeSession()

    /// Alamofire's `ClosureAPIConcurrencyTests`: every stream of a request
    /// collected in parallel with its response; each ends with the request.
    @Test func everyStreamEndsWithTheRequestHavingSeenItsEvents() async throws {
        let fixture = try Fixture()
        let request = session.request(fixture.url("/big"))
        let responsesStream = request.httpResponses()
        let progressStream = request.downloadProgress()
        let requestsStream = request.urlRequests()
        let descriptionsStream = request.cURLDescriptions()
        async let responses = responsesStream.collect()
        async let progress = progressStream.collect()
        async let requests = requestsStream.collect()
        async let descriptions = descriptionsStream.collect()
        async let response = request.serializingResponse().value
        let values = try await (responses, progress, requests, descriptions, response)
        #expect(values.4.response?.statusCode == 200)
        #expect(values.0.map(\.statusCode) == [200])
        let received = values.1.map(\.completed)
        #expect(received.count > 1, "a progress update per chunk")
        #expect(received == received.sorted(), "monotonic")
        #expect(received.last == Int64(Fixture.bigBodySize), "the last update is the whole body")
        #expect(values.1.last?.isFinished == true)
        let built = values.2.map { $0.url?.absoluteString }
        #expect(built == [fixture.url("/big")])
        #expect(values.3.count == 1 && values.3[0].hasPrefix("$ curl"))
    }

    @Test func anUploadsProgressStreamEndsAtTheBodysSize() async throws {
        let server = try LoopbackServer(bodyBufferLimit: 1 << 20, oversizedBodies: .truncate) { .echo($0) }
        defer { server.shutdown() }
        let body = Data(repeating: 9, count: 4 << 20)
        let request = session.upload(body, to: server.url("/"))
        let progressStream = request.uploadProgress()
        async let progress = progressStream.collect()
        async let result = request.serializingData().result
        let (sent, outcome) = await (progress.map(\.completed), result)
        #expect(outcome.isSuccess, "\(outcome)")
        #expect(!sent.isEmpty)
        #expect(sent == sent.sorted(), "monotonic")
        #expect(sent.last == Int64(body.count))
    }

    @Test func aDataRequestsUploadProgressStreamEndsAtItsBodysSize() async throws {
        let server = try LoopbackServer(bodyBufferLimit: 1 << 20, oversizedBodies: .truncate) { .echo($0) }
        defer { server.shutdown() }
        var urlRequest = URLRequest(url: server.url("/"))
        urlRequest.httpMethod = "PUT"
        urlRequest.httpBody = Data(repeating: 3, count: 1 << 20)
        let request = session.request(urlRequest)
        let progressStream = request.uploadProgress()
        async let progress = progressStream.collect()
        async let result = request.serializingData().result
        let (sent, outcome) = await (progress.map(\.completed), result)
        #expect(outcome.isSuccess, "\(outcome)")
        #expect(sent.last == Int64(1 << 20))
    }

    @Test func aCancelledRequestsStreamsEnd() async throws {
        let fixture = try Fixture()
        let request = session.request(fixture.url("/never"), timeout: 600)
        let progressStream = request.downloadProgress()
        let responsesStream = request.httpResponses()
        request.cancel()
        #expect(await progressStream.collect().isEmpty)
        #expect(await responsesStream.collect().isEmpty)
    }

    @Test func aStreamOfAFinishedRequestEndsAtOnce() async throws {
        let fixture = try Fixture()
        let request = session.request(fixture.url("/json"))
        _ = try await request.serializingData().value
        #expect(await request.urlRequests().collect().count == 1)
        #expect(await request.downloadProgress().collect().isEmpty, "no body comes any more")
    }

    @Test func anAsyncResponseHandlerMayCancelTheBody() async throws {
        let fixture = try Fixture()
        let heard = Recorder<Int>()
        let request = session.request(fixture.url("/big")).onHTTPResponse { response in
            await Task.yield()
            heard.append(response.statusCode)
            return .cancel
        }
        let result = await request.serializingData().result
        #expect(heard.events == [200])
        #expect(request.isCancelled)
        #expect(result.failure?.asHTTPError?.isExplicitlyCancelledError == true, "\(result)")
    }

    @Test func anAsyncResponseHandlerWithoutADispositionLetsTheBodyRun() async throws {
        let fixture = try Fixture()
        let heard = Recorder<Int>()
        let request = session.request(fixture.url("/json")).onHTTPResponse { response in
            await Task.yield()
            heard.append(response.statusCode)
        }
        #expect(try await request.serializingData().value.count > 0)
        #expect(heard.events == [200])
    }
}
