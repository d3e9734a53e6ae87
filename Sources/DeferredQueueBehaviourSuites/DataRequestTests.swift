import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

@Suite("DataRequest: chained handlers and serializers")
struct DataRequestTests {
    /// A new session per test, on the transport under test (see TestTransport).
    let session = TestTransport.makeSession()

    @Test func fourChainedHandlersRunInOrderAndSeeTheSameBytes() async throws {
        let fixture = try Fixture()
        let order = Recorder<String>()
        let bodies = Recorder<Data?>()
        let done = Latch(count: 4)
        session.request(fixture.url("/json"))
            .response(queue: handlerQueue) { order.append("response"); bodies.append($0.data); done.arrive() }
            .responseData(queue: handlerQueue) { order.append("data"); bodies.append($0.data); done.arrive() }
            .responseString(queue: handlerQueue) { order.append("string"); bodies.append($0.data); done.arrive() }
            .responseJSON(queue: handlerQueue) { response in
                order.append("json:\(response.value?["title"].string ?? "-")")
                bodies.append(response.data)
                done.arrive()
            }
        #expect(await done.wait())
        #expect(order.events == ["response", "data", "string", "json:hello"])
        let expected = Data(#"{"title":"hello","count":3,"tags":["a","b"]}"#.utf8)
        #expect(bodies.events == Array(repeating: expected, count: 4))
    }

    @Test func aHandlerAddedAfterCompletionStillRunsAfterTheOthers() async throws {
        let fixture = try Fixture()
        let order = Recorder<Int>()
        let first = Latch()
        let req = session.request(fixture.url("/text")).responseString(queue: handlerQueue) { _ in order.append(1); first.arrive() }
        #expect(await first.wait())
        let late = await response { handler in
            req.responseString(queue: handlerQueue) { order.append(2); handler($0) }
        }
        #expect(late?.value == "héllo wörld")
        #expect(order.events == [1, 2])
    }

    @Test func handlersRunOnTheQueueTheyAskFor() async throws {
        let fixture = try Fixture()
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "tests.custom")
        queue.setSpecific(key: key, value: 42)
        let seen = Recorder<Int?>()
        _ = await response { handler in
            session.request(fixture.url("/json")).responseData(queue: queue) { response in
                seen.append(DispatchQueue.getSpecific(key: key))
                handler(response)
            }
        }
        #expect(seen.events == [42])
    }

    @Test func responseCarriesRequestResponseAndTiming() async throws {
        let fixture = try Fixture()
        let result = await response { session.request(fixture.url("/json")).responseData(queue: handlerQueue, completionHandler: $0) }
        let response = try #require(result)
        #expect(response.request?.url?.path == "/json")
        #expect(response.response?.statusCode == 200)
        #expect(response.timing.end >= response.timing.start)
        #expect(response.timing.duration >= 0)
    }

    @Test func jsonDistinguishesNullAndMalformedBodies() async throws {
        let fixture = try Fixture()
        let null = await response { session.request(fixture.url("/null")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(null?.value == JSON.null)
        let malformed = await response { session.request(fixture.url("/malformed")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(malformed?.error?.kind == "jsonSyntax")
        if case .responseSerializationFailed(.jsonSyntax(let syntax))? = malformed?.error {
            #expect(syntax.offset > 0, "the error says where the JSON broke")
        }
        let ok = await response { session.request(fixture.url("/json")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(ok?.value?["count"].int == 3)
        #expect(ok?.value?["tags"][1].string == "b")
    }

    struct Item: Decodable, Sendable, Equatable {
        let title: String
        let count: Int
    }

    @Test func decodableDecodesAndReportsDecodingErrors() async throws {
        let fixture = try Fixture()
        let item = await response { session.request(fixture.url("/json")).responseDecodable(of: Item.self, queue: handlerQueue, completionHandler: $0) }
        #expect(item?.value == Item(title: "hello", count: 3))
        let wrongShape = await response { session.request(fixture.url("/text")).responseDecodable(of: Item.self, queue: handlerQueue, completionHandler: $0) }
        #expect(wrongShape?.error?.kind == "decoding")
        let optional = await response { session.request(fixture.url("/null")).responseDecodable(of: Item?.self, queue: handlerQueue, completionHandler: $0) }
        #expect(optional?.result.isSuccess == true)
        #expect(optional?.value == .some(nil))
    }

    @Test func emptyBodiesSucceedOnlyWhereExpected() async throws {
        let fixture = try Fixture()
        let noContentData = await response { session.request(fixture.url("/no-content")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(noContentData?.value == Data())
        let noContentString = await response { session.request(fixture.url("/no-content")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(noContentString?.value == "")
        let noContentJSON = await response { session.request(fixture.url("/no-content")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(noContentJSON?.value == JSON.null, "an allowed empty body is JSON null, as Alamofire's NSNull")
        let noContentDecodable = await response {
            session.request(fixture.url("/no-content")).responseDecodable(of: Item.self, queue: handlerQueue, completionHandler: $0)
        }
        #expect(noContentDecodable?.error?.kind == "invalidEmpty", "Item is no EmptyResponse: nothing stands for no content")
        let head = await response { session.request(fixture.url("/json"), method: .head).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(head?.value == Data())
        let emptyOK = await response { session.request(fixture.url("/empty")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(emptyOK?.error?.kind == "emptyBody", "an empty 200 is not the data the caller asked for")
    }

    @Test func stringsFollowTheCharsetThenUTF8ThenLatin1() async throws {
        let fixture = try Fixture()
        let declared = await response { session.request(fixture.url("/latin1")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(declared?.value == Fixture.latin1Text)
        let undeclared = await response { session.request(fixture.url("/latin1-undeclared")).responseString(queue: handlerQueue, completionHandler: $0) }
        #expect(undeclared?.value == Fixture.latin1Text, "invalid UTF-8 without a charset falls back to Latin-1")
        let explicit = await response {
            session.request(fixture.url("/text")).responseString(queue: handlerQueue, encoding: .isoLatin1, completionHandler: $0)
        }
        #expect(explicit?.value == "hÃ©llo wÃ¶rld", "an explicit encoding wins over the header")
    }

    @Test func redirectsAreFollowedAndLoopsFailClearly() async throws {
        let fixture = try Fixture()
        let redirected = await response { session.request(fixture.url("/redirect")).responseJSON(queue: handlerQueue, completionHandler: $0) }
        #expect(redirected?.value?["title"] == "hello")
        #expect(redirected?.response?.url?.path == "/json")
        let loop = await response { session.request(fixture.url("/redirect-loop")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(loop?.error?.urlError?.code == .httpTooManyRedirects)
    }

    @Test func methodHeadersAndBodyAreSent() async throws {
        let fixture = try Fixture()
        let echoed = await response { handler in
            session.request(fixture.url("/echo"), method: .put, headers: ["X-Test": "yes", "Accept": "application/json"],
                    body: Data("payload".utf8))
                .responseJSON(queue: handlerQueue, completionHandler: handler)
        }
        let json = try #require(echoed?.value)
        #expect(json["method"] == "PUT")
        #expect(json["body"] == "payload")
        #expect(json["headers"].object?.first { $0.key.lowercased() == "x-test" }?.value == "yes")
    }

    @Test func cURLDescriptionShowsMethodHeadersBodyAndURL() throws {
        let fixture = try Fixture()
        let req = session.request(fixture.url("/echo"), method: .post, headers: ["X-Quote": "it's"], body: Data("a=1".utf8))
        let curl = req.cURLDescription()
        #expect(curl.hasPrefix("$ curl -v"))
        #expect(curl.contains("-X POST"))
        #expect(curl.contains(#"-H 'X-Quote: it'\''s'"#))
        #expect(curl.contains("--data-raw 'a=1'"))
        #expect(curl.contains("'\(fixture.url("/echo"))'"))
        req.cancel()
        #expect(session.request("not a url").cURLDescription().contains("no valid URL"))
    }

    /// Alamofire serializes on a queue that targets its root queue, so the
    /// progress it reported there has run before any response handler (its
    /// own tests check the last value is 1 when the response arrives).
    @Test(arguments: ["download", "upload"])
    func progressReportedOnTheRootQueueRunsBeforeTheResponseHandlers(_ direction: String) async throws {
        let body = Data(repeating: 7, count: 256 << 10)
        let server = try LoopbackServer { request in
            direction == "download" ? .trickle(body: body, chunkSize: 16 << 10, interval: 0.002) : .text("ok")
        }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let seen = Recorder<Double>()
        // Slow on purpose: progress piles up on the root queue while the transfer ends.
        let progress: @Sendable (TransferProgress) -> Void = { progress in
            usleep(2_000)
            seen.append(progress.fractionCompleted)
        }
        let request = direction == "download"
            ? session.request(server.url("/")).downloadProgress(queue: session.rootQueue, closure: progress)
            : session.upload(body, to: server.url("/")).uploadProgress(queue: session.rootQueue, closure: progress)
        let lastSeen = Recorder<Double?>()
        let done = Latch()
        request.response(queue: handlerQueue) { _ in
            lastSeen.append(seen.events.last)
            done.arrive()
        }
        #expect(await done.wait())
        #expect(lastSeen.events == [1.0], "\(TestTransport.name), \(direction): \(seen.count) updates, the last before the response \(lastSeen.events)")
    }

    /// `onHTTPResponse`: the body waits for the handler's disposition, so
    /// `.cancel` stops a transfer whose head was judged, on every transport.
    @Test func anHTTPResponseHandlerDecidesWhetherTheBodyFollows() async throws {
        let body = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0) })
        let server = try LoopbackServer { _ in .trickle(body: body, chunkSize: 16 << 10, interval: 0.005) }
        defer { server.shutdown() }
        let session = TestTransport.makeSession()
        let refused = try await session.request(server.url("/")).onHTTPResponse(on: handlerQueue) { response, decide in
            decide(response.statusCode == 200 ? .cancel : .allow)
        }.serializingResponse().value
        #expect(refused.error?.isCancelled == true, "\(String(describing: refused.error))")
        #expect(refused.data == nil)
        let heads = Recorder<Int>()
        let allowed = try await session.request(server.url("/")).onHTTPResponse(on: handlerQueue) { heads.append($0.statusCode) }
            .serializingResponse().value
        #expect(allowed.data == body)
        #expect(heads.events == [200])
    }
}

