import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
import DeferredQueue

/// One transport given to several sessions: it serves them until the last
/// one goes, then refuses with an error that says so. (Released with the
/// first session, it shut down under the others: corelibs then trapped,
/// "Session invalidated", at the next request.)
@Suite("A transport shared by sessions")
struct SharedTransportTests {
    /// Releases `session` and waits until it is gone.
    private static func release(_ session: inout Session?) async -> Bool {
        weak let released = session
        session = nil
        return await eventually(within: 60) { released == nil }
    }

    @Test func aTransportServesItsOtherSessionAfterOneIsReleased() async throws {
        let fixture = try Fixture()
        var first: Session? = TestTransport.makeSession()
        let transport = try #require(first?.transport)
        let second = Session(transport: transport)
        #expect(await Self.release(&first))
        let result = await response(within: 120) { second.request(fixture.url("/json")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.value != nil, "\(TestTransport.name): \(String(describing: result?.error))")
    }

    @Test func aTransportWhoseSessionsAreAllGoneRefusesClearly() async throws {
        let fixture = try Fixture()
        var first: Session? = TestTransport.makeSession()
        let transport = try #require(first?.transport)
        let served = await response(within: 120) { first?.request(fixture.url("/json")).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(served?.value != nil)
        #expect(await Self.release(&first))
        let later = Session(transport: transport)
        let refused = await response(within: 120) { later.request(fixture.url("/json")).responseData(queue: handlerQueue, completionHandler: $0) }
        let error = refused?.error?.underlyingError as? URLError
        #expect(error?.code == .unknown, "\(TestTransport.name): \(String(describing: refused?.error))")
        #expect(refused?.error?.localizedDescription.contains("was shut down when the last Session using it was released") == true,
                "\(TestTransport.name): \(String(describing: refused?.error))")
        #expect(fixture.server.requestCount == 1, "nothing sent through the shut transport")
    }
}
