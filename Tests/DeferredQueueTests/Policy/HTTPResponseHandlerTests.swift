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

    /// The heads the handler heard, and the status the request ended with.
    private func heads(of request: DataRequest) async throws -> (heard: [Int], final: Int?) {
        let heads = Recorder<Int>()
        let response = try await request.onHTTPResponse(on: handlerQueue) { heads.append($0.statusCode) }.serializingResponse().value
        #expect(await eventually { heads.count == 1 })
        return (heads.events, response.response?.statusCode)
    }

    @Test func theHandlerHearsTheFinalHeadNotTheRedirect() async throws {
        let (heard, final) = try await heads(of: session.request(fixture.url("/redirect")))
        #expect(final == 200)
        #expect(heard == [200])
    }

    /// Final heads are what the request ends with, not what looks like a
    /// redirect: one not followed is heard, a challenge answered is not.
    @Test func theHandlerHearsARedirectNotFollowedButNotAChallengeAnswered() async throws {
        let redirect = try await heads(of: session.request(fixture.url("/redirect")).redirect(using: .doNotFollow))
        #expect(redirect.final == 302)
        #expect(redirect.heard == [302])

        let challenge = try await heads(of: session.request(fixture.url("/basic")).authenticate(username: "user", password: "secret"))
        #expect(challenge.final == 200)
        #expect(challenge.heard == [200])
    }

    /// A `modify` redirector is asked once the redirect's attempt ended: the
    /// handler was told nothing of a head the request then did not follow.
    @Test func aRedirectAModifyClosureDeclinesIsNotHeard() async throws {
        let heads = Recorder<Int>()
        let response = try await session.request(fixture.url("/redirect")).redirect(using: Redirector(behavior: .modify { _, _ in nil }))
            .onHTTPResponse(on: handlerQueue) { heads.append($0.statusCode) }
            .serializingResponse().value
        #expect(response.response?.statusCode == 302)
        handlerQueue.sync {}
        #expect(heads.events.isEmpty)
    }

    /// A stream's head heard as final was streamed as the response: a
    /// credential set from the handler, before the body, does not make the
    /// request go on from it afterwards (its chunks would precede another
    /// response's).
    @Test func aStreamDoesNotGoOnFromAHeadItStreamedAsFinal() async throws {
        let done = Latch()
        let chunks = Recorder<Data>()
        let completion = Recorder<DataStreamRequest.Completion>()
        let request = session.streamRequest(fixture.url("/basic"))
        request.onHTTPResponse(on: handlerQueue) { _, decide in
            request.authenticate(username: "user", password: "secret")
            decide(.allow)
        }
        .responseStream(on: handlerQueue) { stream in
            switch stream.event {
            case .stream(let result): if case .success(let data) = result { chunks.append(data) }
            case .complete(let end):
                completion.append(end)
                done.arrive()
            }
        }
        #expect(await done.wait())
        #expect(completion.events.first?.response?.statusCode == 401)
        #expect(String(decoding: chunks.events.reduce(into: Data()) { $0.append($1) }, as: UTF8.self) == "denied")
        #expect(fixture.requests(to: "/basic").count == 1)
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
