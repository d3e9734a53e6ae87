import DeferredQueueTesting
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Where a request's handler queue runs (``HandlerLane``): on the queue its
/// handlers named when each runs only the library's serializers (on a small
/// body, for those that decode it), on the global pool otherwise. Seen from outside: while that queue
/// is blocked, a handler added on another queue after the request finished
/// waits for it exactly when the handler queue follows it (the later
/// handler's turn comes after the earlier ones', on the same lane).
@Suite("Handler lane: responses for handlers on one queue are served on that queue")
struct HandlerLaneTests {
    /// A serial queue blocked by its first block until `release()` (or, should
    /// a test never release it, for longer than any test waits).
    final class HeldQueue: Sendable {
        let queue = DispatchQueue(label: "HandlerLaneTests.held")
        private let gate = DispatchSemaphore(value: 0)

        init() {
            let gate = self.gate
            queue.async { _ = gate.wait(timeout: .now() + 600) }
        }

        func release() { gate.signal() }
    }

    /// Makes a request answered with `reply`, adds `handlers` (given the
    /// held queue) and only then starts it — the choice is made from the
    /// handlers added by the time the response arrives, and a mock answers
    /// at once — waits until it finished, then adds a handler on the
    /// global pool. Returns whether that handler ran while the held queue
    /// was still blocked (waiting `patience` seconds for it), and whether
    /// every handler ran once the queue was released.
    private func lateHandlerRunsWhileHeld(
        reply: MockReply,
        session makeSession: (MockTransport, ClosureEventMonitor) -> Session = {
            Session(transport: $0, startRequestsImmediately: false, eventMonitors: [$1])
        },
        patience: Double, handlers: (DataRequest, DispatchQueue, Latch) -> Void, handlerCount: Int = 1
    ) async -> (whileHeld: Bool, all: Bool) {
        let held = HeldQueue()
        let finished = Latch()
        let monitor = ClosureEventMonitor(requestDidFinish: { _ in finished.arrive() })
        let session = makeSession(MockTransport { _ in reply }, monitor)
        let request = session.request("http://lane.invalid/resource")
        let ran = Latch(count: handlerCount)
        handlers(request, held.queue, ran)
        request.resume()
        guard await finished.wait() else {
            held.release()
            return (false, false)
        }
        let late = Latch()
        request.response(queue: .global()) { _ in late.arrive() }
        let whileHeld = await late.wait(seconds: patience)
        held.release()
        let all = await late.wait()
        return (whileHeld, await ran.wait() && all)
    }

    @Test func aSmallBodyForHandlersOnOneQueueIsServedOnThatQueue() async {
        let result = await lateHandlerRunsWhileHeld(reply: .json(#"{"ok":true}"#), patience: 0.5, handlers: { request, queue, ran in
            request.responseData(queue: queue) { _ in ran.arrive() }
                .responseDecodable(of: [String: Bool].self, queue: queue) { _ in ran.arrive() }
        }, handlerCount: 2)
        #expect(!result.whileHeld, "the later handler's turn ran before the blocked queue's: the handler queue did not follow it")
        #expect(result.all)
    }

    /// A serializer that decodes the body keeps a large one on the pool, so
    /// that many requests naming one queue still decode in parallel.
    @Test func aBodyAboveTheLimitToDecodeIsServedOnThePool() async {
        let body = Data(repeating: 0x61, count: HandlerLane.bodyLimit + 1)
        let result = await lateHandlerRunsWhileHeld(reply: .status(200, body: body), patience: 60) { request, queue, ran in
            request.responseData(queue: queue) { _ in ran.arrive() }
                .responseString(queue: queue) { _ in ran.arrive() }
        }
        #expect(result.whileHeld)
        #expect(result.all)
    }

    /// Handing the body over as it is costs the same at any size: a large
    /// body for `Data` handlers follows their queue too.
    @Test func aBodyAboveTheLimitHandedOverAsItIsIsServedOnThatQueue() async {
        let body = Data(repeating: 0x61, count: HandlerLane.bodyLimit + 1)
        let result = await lateHandlerRunsWhileHeld(reply: .status(200, body: body), patience: 0.5, handlers: { request, queue, ran in
            request.responseData(queue: queue) { _ in ran.arrive() }
                .response(queue: queue) { _ in ran.arrive() }
        }, handlerCount: 2)
        #expect(!result.whileHeld, "the later handler's turn ran before the blocked queue's: the handler queue did not follow it")
        #expect(result.all)
    }

    @Test func aPreprocessorOfTheCallersKeepsThePool() async {
        let result = await lateHandlerRunsWhileHeld(reply: .text(")]}',\nabc"), patience: 60) { request, queue, ran in
            request.responseString(queue: queue, dataPreprocessor: GoogleXSSIPreprocessor()) { _ in ran.arrive() }
        }
        #expect(result.whileHeld)
        #expect(result.all)
    }

    @Test func handlersOnTwoQueuesKeepThePool() async {
        let other = DispatchQueue(label: "HandlerLaneTests.other")
        let result = await lateHandlerRunsWhileHeld(reply: .json("{}"), patience: 60, handlers: { request, queue, ran in
            request.responseData(queue: queue) { _ in ran.arrive() }
                .responseData(queue: other) { _ in ran.arrive() }
        }, handlerCount: 2)
        #expect(result.whileHeld)
        #expect(result.all)
    }

    @Test func aSessionsSerializationQueueIsWhereHandlersRun() async {
        let serialization = DispatchQueue(label: "HandlerLaneTests.serialization")
        let result = await lateHandlerRunsWhileHeld(
            reply: .json("{}"), session: {
                Session(transport: $0, startRequestsImmediately: false, serializationQueue: serialization, eventMonitors: [$1])
            }, patience: 60
        ) { request, queue, ran in
            request.responseData(queue: queue) { _ in ran.arrive() }
        }
        #expect(result.whileHeld)
        #expect(result.all)
    }

    /// A session whose retriers may be asked about a serializer's failure.
    static func retryingSession(_ transport: MockTransport, _ monitor: ClosureEventMonitor) -> Session {
        Session(transport: transport, startRequestsImmediately: false, interceptor: Interceptor(), eventMonitors: [monitor])
    }

    /// A serializer's handler the retriers may be asked about (the session
    /// has an interceptor) follows too: the retriers decide elsewhere.
    @Test func aHandlerTheRetriersMayAskAboutFollowsToo() async {
        let result = await lateHandlerRunsWhileHeld(
            reply: .json("{}"), session: Self.retryingSession, patience: 0.5
        ) { request, queue, ran in
            request.responseData(queue: queue) { _ in ran.arrive() }
        }
        #expect(!result.whileHeld)
        #expect(result.all)
    }

    /// The same with a preprocessor of the caller's keeps the pool.
    @Test func aRetryableHandlerWithTheCallersPreprocessorKeepsThePool() async {
        let result = await lateHandlerRunsWhileHeld(
            reply: .text(")]}',\nabc"), session: Self.retryingSession, patience: 60
        ) { request, queue, ran in
            request.responseString(queue: queue, dataPreprocessor: GoogleXSSIPreprocessor()) { _ in ran.arrive() }
        }
        #expect(result.whileHeld)
        #expect(result.all)
    }

    /// A `serializing…` deferred's queue targets the request's handler
    /// queue: what waits on it (an awaiting Task, a `then` without `on:`)
    /// runs where the serializer ran, not on a pool thread woken for it. Seen
    /// through a session's `serializationQueue`, which every handler queue
    /// targets: a `then` on the deferred finds that queue's specific value.
    @Test func aSerializingDeferredsHandlersRunWhereTheRequestsHandlersRun() async throws {
        let serialization = DispatchQueue(label: "HandlerLaneTests.serialization")
        let key = DispatchSpecificKey<String>()
        serialization.setSpecific(key: key, value: "serialization")
        let session = Session(transport: MockTransport(replying: .json(#"{"ok":true}"#)), serializationQueue: serialization)
        let seen = try await session.request("https://example.com/").serializingData()
            .then { _ in DispatchQueue.getSpecific(key: key) }.value
        #expect(seen == "serialization")
    }

    @Test func theLaneFollowsOneQueueOtherThanMain() {
        let queue = DispatchQueue(label: "HandlerLaneTests.unit")
        var lane = HandlerLane.unchosen
        lane.add(handlerOn: queue)
        lane.add(handlerOn: queue)
        #expect(lane.target(forBodyOf: HandlerLane.bodyLimit) === queue)
        #expect(lane.target(forBodyOf: HandlerLane.bodyLimit + 1) == nil)
        lane.add(handlerOn: DispatchQueue(label: "HandlerLaneTests.another"))
        #expect(lane.target(forBodyOf: 0) == nil, "two queues")
        lane.add(handlerOn: queue)
        #expect(lane.target(forBodyOf: 0) == nil, "once shared, always shared")

        var main = HandlerLane.unchosen
        main.add(handlerOn: .main)
        #expect(main.target(forBodyOf: 0) == nil, "never the main queue")
        var unfit = HandlerLane.unchosen
        unfit.add(handlerOn: queue)
        unfit.add(handlerOn: nil)
        #expect(unfit.target(forBodyOf: 0) == nil, "a handler that cannot follow")
        #expect(HandlerLane.unchosen.target(forBodyOf: 0) == nil)

        var anySize = HandlerLane.unchosen
        anySize.add(handlerOn: queue, growsWithBody: false)
        anySize.add(handlerOn: queue, growsWithBody: false)
        #expect(anySize.target(forBodyOf: HandlerLane.bodyLimit + 1) === queue, "nothing grows with the body")
        anySize.add(handlerOn: queue)
        #expect(anySize.target(forBodyOf: HandlerLane.bodyLimit) === queue)
        #expect(anySize.target(forBodyOf: HandlerLane.bodyLimit + 1) == nil, "one handler decodes the body")
        var decodingFirst = HandlerLane.unchosen
        decodingFirst.add(handlerOn: queue)
        decodingFirst.add(handlerOn: queue, growsWithBody: false)
        #expect(decodingFirst.target(forBodyOf: HandlerLane.bodyLimit + 1) == nil, "whichever handler came first")
        for leave in [DispatchQueue(label: "HandlerLaneTests.third"), nil, .main] as [DispatchQueue?] {
            var left = HandlerLane.unchosen
            left.add(handlerOn: queue, growsWithBody: false)
            left.add(handlerOn: leave, growsWithBody: false)
            #expect(left.target(forBodyOf: 0) == nil, "another queue, a handler that cannot follow, or main: the pool")
        }
    }

    /// A decoding serializer with a large body keeps the pool, each of
    /// the library's; with a small body, each follows.
    @Test(arguments: ["json", "decodable", "string"])
    func eachDecodingSerializerKeepsThePoolForALargeBody(_ serializer: String) async {
        let padding = String(repeating: " ", count: HandlerLane.bodyLimit + 1)
        let result = await lateHandlerRunsWhileHeld(reply: .json(#"{"ok":true}"# + padding), patience: 60) { request, queue, ran in
            switch serializer {
            case "json": request.responseJSON(queue: queue) { _ in ran.arrive() }
            case "decodable": request.responseDecodable(of: [String: Bool].self, queue: queue) { _ in ran.arrive() }
            default: request.responseString(queue: queue) { _ in ran.arrive() }
            }
        }
        #expect(result.whileHeld)
        #expect(result.all)
    }

    /// A preprocessor of the caller's on `responseData` keeps the pool
    /// whatever the body's size: it is the caller's code.
    @Test func aDataPreprocessorOfTheCallersKeepsThePoolForALargeBody() async {
        let body = Data(repeating: 0x61, count: HandlerLane.bodyLimit + 1)
        let result = await lateHandlerRunsWhileHeld(reply: .status(200, body: body), patience: 60) { request, queue, ran in
            request.responseData(queue: queue, dataPreprocessor: GoogleXSSIPreprocessor()) { _ in ran.arrive() }
        }
        #expect(result.whileHeld)
        #expect(result.all)
    }
}
