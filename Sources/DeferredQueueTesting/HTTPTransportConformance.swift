import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

/// The ``HTTPTransport`` contract as checks, runnable on any transport from
/// any test target.
///
/// Each check starts a loopback HTTP server on 127.0.0.1, runs attempts
/// directly on a transport from your factory (no ``Session`` in between)
/// and throws ``HTTPTransportConformance/Failure`` naming what broke:
///
/// ```swift
/// import DeferredQueueTesting
/// import Testing
///
/// @Test(arguments: HTTPTransportConformance.checks)
/// func conformance(_ check: HTTPTransportConformance.Check) async throws {
///     try await HTTPTransportConformance { MyTransport() }.run(check)
/// }
/// ```
///
/// The checks cover the events' order and queue, collected and streamed
/// bodies, the body limit, decoding, redirects and challenges reported
/// rather than acted on, the request as sent (method, headers, body, a file
/// body), cancellation from many threads, the idle timeout, and the
/// `URLError` codes of refused connections, cut bodies and ambiguous framing.
public struct HTTPTransportConformance: Sendable {
    /// Makes a new transport for each check.
    public let makeTransport: @Sendable () -> any HTTPTransport

    /// Checks the transports `makeTransport` makes.
    public init(makeTransport: @escaping @Sendable () -> any HTTPTransport) {
        self.makeTransport = makeTransport
    }

    /// One check of the contract.
    public struct Check: Sendable, CustomStringConvertible {
        /// What the check expects, as a sentence.
        public let name: String
        let body: @Sendable (HTTPTransportConformance) async throws -> Void

        public var description: String { name }
    }

    /// A broken promise of the contract.
    public struct Failure: Error, CustomStringConvertible {
        /// The check that failed.
        public let check: String
        /// What happened instead.
        public let message: String

        public var description: String { "\(check): \(message)" }
    }

    /// Every check, in a stable order.
    public static var checks: [Check] { ConformanceChecks.all }

    /// Runs one check.
    ///
    /// - Throws: ``Failure`` when the transport broke the contract, or the
    ///   error that kept the check from running (a server that could not start).
    public func run(_ check: Check) async throws {
        do {
            try await check.body(self)
        } catch let failure as ConformanceFailure {
            throw Failure(check: check.name, message: failure.message)
        }
    }

    /// Runs every check and returns the failures (empty: the transport conforms).
    public func runAll() async -> [Failure] {
        var failures: [Failure] = []
        for check in Self.checks {
            do {
                try await run(check)
            } catch let failure as Failure {
                failures.append(failure)
            } catch {
                failures.append(Failure(check: check.name, message: "could not run: \(error)"))
            }
        }
        return failures
    }
}

/// What a check throws; ``HTTPTransportConformance/run(_:)`` names the check.
struct ConformanceFailure: Error {
    let message: String
}
