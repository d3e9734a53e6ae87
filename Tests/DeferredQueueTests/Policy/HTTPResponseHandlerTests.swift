import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// `onHTTPResponse`: the final head, before the body, with a say in whether
/// the transfer goes on. On MockTransport.
@Suite("onHTTPResponse: the head before the body")
struct HTTPResponseHandlerTests {
    let fixture = PolicyFixture()
    var session: Session { fixture.session }

    @Test func theHandlerHearsTheFinalHeadNotTheRedirect() async throws {
        let heads = Recorder<Int>()
        let response = try await session.request(fixture.url("/redirect"))
            .onHTTPResponse(on: handlerQueue) { heads.append($0.statusCode) }
            .serializingResponse().value
        #expect(response.response?.statusCode == 200)
        #expect(await eventually { heads.count == 1 })
        #expect(heads.events == [200])
    }

    @Test func cancellingFromTheHandlerCancelsTheRequest() async throws {
        let response = try await session.request(fixture.url("/json"))
            .onHTTPResponse(on: handlerQueue) { response, decide in decide(response.statusCode == 200 ? .cancel : .allow) }
            .serializingResponse().value
        #expect(response.error?.isCancelled == true, "\(String(describing: response.error))")

        let allowed = try await session.request(fixture.url("/json"))
            .onHTTPResponse(on: handlerQueue) { _, decide in decide(.allow) }
            .serializingResponse().value
        #expect(allowed.error == nil)
    }

    @Test func aStreamsHandlerHearsTheHeadBeforeTheFirstChunk() async throws {
        let order = Recorder<String>()
        let done = Latch()
        let serial = DispatchQueue(label: "order")
        session.streamRequest(fixture.url("/json"))
            .onHTTPResponse(on: serial) { order.append("head \($0.statusCode)") }
            .responseStream(on: serial) { stream in
                switch stream.event {
                case .stream: order.append("chunk")
                case .complete:
                    order.append("end")
                    done.arrive()
                }
            }
        #expect(await done.wait())
        #expect(order.events.first == "head 200")
        #expect(order.events.last == "end")
    }
}
