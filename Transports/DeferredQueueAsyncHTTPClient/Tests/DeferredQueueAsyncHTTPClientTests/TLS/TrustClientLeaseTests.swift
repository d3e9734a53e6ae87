import AsyncHTTPClient
import DeferredQueueTesting
import Dispatch
import Foundation
import LoopbackServer
import NIOPosix
import TestSupport
import Testing
@testable import DeferredQueue
@testable import DeferredQueueAsyncHTTPClient

/// The clients of evaluated hosts past their capacity: the oldest goes,
/// but only once the attempts using it ended.
@Suite("AsyncHTTPClient: evaluated hosts' clients past the capacity")
struct TrustClientLeaseTests {
    /// Whether `client` was shut down: a GET through it fails at once with
    /// `alreadyShutdown`. (A live one fails otherwise: the loopback server
    /// speaks plain HTTP, which an evaluated host's client refuses.)
    private static func isShutDown(_ client: HTTPClient, url: URL) async -> Bool {
        do {
            _ = try await client.get(url: url.absoluteString).get()
            return false
        } catch {
            return (error as? HTTPClientError) == .alreadyShutdown
        }
    }

    private static func clients(capacity: Int) -> ServerTrustClients {
        // The client retries a refused connection until this: the refusal, sooner.
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .milliseconds(300)
        return ServerTrustClients(
            base: configuration, group: MultiThreadedEventLoopGroup.singleton,
            queue: DispatchQueue(label: "TrustClientLeaseTests"), capacity: capacity
        )
    }

    /// Polls until `client` is shut down, within a guard deadline (120 s).
    private static func becomesShutDown(_ client: HTTPClient, url: URL) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if await isShutDown(client, url: url) { return true }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return false
    }

    @Test func anEvictedClientServesTheAttemptsThatLeasedItThenShutsDown() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let url = server.url("/")
        let clients = Self.clients(capacity: 1)
        defer { clients.shutdown() }
        let first = try clients.entry(forHost: "first.example", evaluator: DefaultTrustEvaluator())
        // Past the capacity of one: the first is evicted while an attempt holds it.
        let second = try clients.entry(forHost: "second.example", evaluator: DefaultTrustEvaluator())
        #expect(await !Self.isShutDown(first.client, url: url), "the leased client runs on")
        first.release()
        // Released and evicted: it shuts down (asynchronously).
        #expect(try await Self.becomesShutDown(first.client, url: url), "the evicted client shut down once released")
        #expect(await !Self.isShutDown(second.client, url: url), "the kept client runs on")
        second.release()
    }

    @Test func aClientFoundAgainIsLeasedAgain() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let clients = Self.clients(capacity: 1)
        defer { clients.shutdown() }
        let first = try clients.entry(forHost: "first.example", evaluator: DefaultTrustEvaluator())
        let again = try clients.entry(forHost: "first.example", evaluator: DefaultTrustEvaluator())
        #expect(first === again)
        first.release()
        // Evicted while the second lease holds it.
        let other = try clients.entry(forHost: "other.example", evaluator: DefaultTrustEvaluator())
        #expect(await !Self.isShutDown(again.client, url: server.url("/")), "one lease is left")
        again.release()
        other.release()
    }

    /// Shutting the clients down reaches one evicted while still in use.
    @Test func shuttingDownReachesAnEvictedClientStillInUse() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let clients = Self.clients(capacity: 1)
        let first = try clients.entry(forHost: "first.example", evaluator: DefaultTrustEvaluator())
        let second = try clients.entry(forHost: "second.example", evaluator: DefaultTrustEvaluator())
        clients.shutdown()
        #expect(try await Self.becomesShutDown(first.client, url: server.url("/")), "the evicted client in use")
        #expect(try await Self.becomesShutDown(second.client, url: server.url("/")))
        first.release()
        second.release()
    }

    /// A client no other attempt can find (an evaluator value that shares
    /// with none) is not kept: it evicts no shared one, and shuts down once
    /// its attempt ended.
    @Test func aClientForOneAttemptIsNotKept() async throws {
        struct Closure: ServerTrustEvaluating {
            let check: @Sendable () throws -> Void
            func evaluate(_ trust: ServerTrust, forHost host: String) throws { try check() }
        }
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let url = server.url("/")
        let clients = Self.clients(capacity: 1)
        defer { clients.shutdown() }
        let shared = try clients.entry(forHost: "first.example", evaluator: DefaultTrustEvaluator())
        shared.release()
        let once = try clients.entry(forHost: "first.example", evaluator: Closure {})
        #expect(await !Self.isShutDown(once.client, url: url), "it serves its attempt")
        let again = try clients.entry(forHost: "first.example", evaluator: DefaultTrustEvaluator())
        #expect(again === shared, "the shared client was not evicted")
        again.release()
        once.release()
        #expect(try await Self.becomesShutDown(once.client, url: url), "the one-use client shut down once released")
    }
}
