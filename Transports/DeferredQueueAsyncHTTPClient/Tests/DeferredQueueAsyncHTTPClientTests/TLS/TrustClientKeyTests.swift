import AsyncHTTPClient
import DeferredQueue
import Dispatch
import NIOPosix
import TestSupport
import Testing
@testable import DeferredQueueAsyncHTTPClient

/// Which evaluators of one host share a client: the client runs the
/// evaluator it was made with on every new connection, so only evaluators
/// known to judge alike may share one.
@Suite("AsyncHTTPClient: which evaluators share an evaluated host's client")
struct TrustClientKeyTests {
    /// An evaluator of the caller's own, whose judgement is a closure.
    struct Closure: ServerTrustEvaluating {
        let check: @Sendable () throws -> Void
        func evaluate(_ trust: ServerTrust, forHost host: String) throws { try check() }
    }

    /// An evaluator of the caller's own that says when two judge alike.
    struct Pins: ServerTrustEvaluating, Hashable {
        let pins: Set<String>
        func evaluate(_ trust: ServerTrust, forHost host: String) throws {}
    }

    /// An evaluator class of the caller's own.
    final class Judge: ServerTrustEvaluating {
        func evaluate(_ trust: ServerTrust, forHost host: String) throws {}
    }

    private static func entries(
        _ first: any ServerTrustEvaluating, _ second: any ServerTrustEvaluating
    ) throws -> (ServerTrustClients.Entry, ServerTrustClients.Entry) {
        let clients = ServerTrustClients(
            base: HTTPClient.Configuration(), group: MultiThreadedEventLoopGroup.singleton, queue: DispatchQueue(label: "TrustClientKeyTests")
        )
        defer { clients.shutdown() }
        let entries = (try clients.entry(forHost: "pinned.example", evaluator: first), try clients.entry(forHost: "pinned.example", evaluator: second))
        entries.0.release()
        entries.1.release()
        return entries
    }

    @Test func evaluatorsThatDifferOnlyInAClosureDoNotShare() throws {
        let (lenient, strict) = try Self.entries(Closure {}, Closure { throw TestError(1) })
        #expect(lenient !== strict)
        // Not even the same closure: nothing shows that it is.
        let check: @Sendable () throws -> Void = {}
        let (first, second) = try Self.entries(Closure(check: check), Closure(check: check))
        #expect(first !== second)
    }

    @Test func aClassInstanceSharesWithItselfOnly() throws {
        let judge = Judge()
        let (first, again) = try Self.entries(judge, judge)
        #expect(first === again)
        let (one, other) = try Self.entries(Judge(), Judge())
        #expect(one !== other)
    }

    @Test func hashableValuesShareWhenEqual() throws {
        let (first, again) = try Self.entries(Pins(pins: ["a"]), Pins(pins: ["a"]))
        #expect(first === again)
        let (old, new) = try Self.entries(Pins(pins: ["a"]), Pins(pins: ["b"]))
        #expect(old !== new)
    }

    @Test func theLibrarysEvaluatorsShareWhenTheirValuesAreEqual() throws {
        let (first, again) = try Self.entries(DefaultTrustEvaluator(), DefaultTrustEvaluator())
        #expect(first === again)
        let (checked, unchecked) = try Self.entries(DefaultTrustEvaluator(validateHost: true), DefaultTrustEvaluator(validateHost: false))
        #expect(checked !== unchecked)
        let (composite, same) = try Self.entries(
            CompositeTrustEvaluator(evaluators: [DefaultTrustEvaluator()]), CompositeTrustEvaluator(evaluators: [DefaultTrustEvaluator()])
        )
        #expect(composite === same)
        // A composite holding one of the caller's: its instance only.
        let (withClosure, againWithClosure) = try Self.entries(
            CompositeTrustEvaluator(evaluators: [Closure {}]), CompositeTrustEvaluator(evaluators: [Closure { throw TestError(2) }])
        )
        #expect(withClosure !== againWithClosure)
    }
}
