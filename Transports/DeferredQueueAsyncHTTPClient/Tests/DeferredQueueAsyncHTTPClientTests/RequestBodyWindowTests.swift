import NIOCore
import NIOEmbedded
import TestSupport
import Testing
@testable import DeferredQueueAsyncHTTPClient

@Suite("RequestBodyWindow: an upload's producer waits for the socket")
struct RequestBodyWindowTests {
    /// Whether `future` has succeeded (an embedded loop runs callbacks at once).
    private func succeeded(_ future: EventLoopFuture<Void>) -> Bool {
        let done = Counter()
        future.whenSuccess { done.increment() }
        return done.count == 1
    }

    @Test func aProducerWithinTheLimitGoesOnAtOnce() {
        let loop = EmbeddedEventLoop()
        let window = RequestBodyWindow(limit: 100)
        #expect(succeeded(window.produced(60, on: loop)))
        #expect(succeeded(window.produced(40, on: loop)), "exactly the limit unwritten is allowed")
    }

    @Test func aProducerPastTheLimitWaitsUntilHalfOfItWasWritten() {
        let loop = EmbeddedEventLoop()
        let window = RequestBodyWindow(limit: 100)
        _ = window.produced(80, on: loop)
        let held = window.produced(80, on: loop)
        #expect(!succeeded(held))
        window.sent(100)
        #expect(!succeeded(held), "60 bytes still unwritten, more than half the limit")
        window.sent(10)
        #expect(succeeded(held))
        #expect(succeeded(window.produced(10, on: loop)))
    }

    @Test func closingReleasesAHeldProducerAndAnyLaterOne() {
        let loop = EmbeddedEventLoop()
        let window = RequestBodyWindow(limit: 100)
        let held = window.produced(500, on: loop)
        #expect(!succeeded(held))
        window.close()
        #expect(succeeded(held))
        #expect(succeeded(window.produced(500, on: loop)))
    }
}
