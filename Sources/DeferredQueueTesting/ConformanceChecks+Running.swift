import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import LockSupport
import Synchronization

extension ConformanceChecks {
    /// The longest a check waits for an attempt to complete.
    static let deadline: Double = 60

    /// Runs one attempt of `request` on a new transport and waits for its
    /// completion; `during` runs once it started, `after` once it completed.
    /// Fails when the attempt does not complete, or broke the contract.
    static func run(
        _ conformance: HTTPTransportConformance, request: URLRequest, collects: Bool,
        limit: Int? = nil, bodyFile: URL? = nil, takesDirectCompletions: Bool = false,
        during: (any HTTPTransportTask) async throws -> Void = { _ in },
        after: (any HTTPTransportTask) -> Void = { _ in }
    ) async throws -> ConformanceEventLog {
        let transport = conformance.makeTransport()
        defer { transport.shutdown() }
        let log = ConformanceEventLog(expecting: transport.callbackQueue, takesDirectCompletions: takesDirectCompletions)
        let attempt = HTTPTransportAttempt(request: request, bodyFile: bodyFile, collectsBody: collects, maximumBodySize: limit)
        let task = transport.startAttempt(attempt, events: log)
        try await during(task)
        guard await eventually({ log.isComplete }) else {
            task.cancel()
            throw ConformanceFailure(message: "the attempt did not complete within \(Int(deadline)) s; events: \(log.events.count)")
        }
        after(task)
        // Time for a stray event after the completion to show up.
        try await Task.sleep(nanoseconds: 100_000_000)
        let violations = log.violations
        try expect(violations.isEmpty, violations.joined(separator: "; "))
        return log
    }

    /// Runs one `GET /` attempt against `server`.
    static func run(
        _ conformance: HTTPTransportConformance, server: LoopbackServer, collects: Bool, limit: Int? = nil,
        takesDirectCompletions: Bool = false
    ) async throws -> ConformanceEventLog {
        var request = URLRequest(url: server.url("/"))
        request.timeoutInterval = deadline
        return try await run(conformance, request: request, collects: collects, limit: limit, takesDirectCompletions: takesDirectCompletions)
    }

    /// Runs one `GET /` attempt against a server answering with `reply`.
    static func run(
        _ conformance: HTTPTransportConformance, reply: @escaping RequestHandler, collects: Bool, limit: Int? = nil,
        takesDirectCompletions: Bool = false
    ) async throws -> ConformanceEventLog {
        let server = try LoopbackServer(handler: reply)
        defer { server.shutdown() }
        return try await run(conformance, server: server, collects: collects, limit: limit, takesDirectCompletions: takesDirectCompletions)
    }

    // MARK: - Expectations

    static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(ConformanceFailure) {
        if !condition { throw ConformanceFailure(message: message()) }
    }

    static func unwrap<T>(_ value: T?, _ message: @autoclosure () -> String) throws(ConformanceFailure) -> T {
        guard let value else { throw ConformanceFailure(message: message()) }
        return value
    }

    static func expectSuccess(_ log: ConformanceEventLog) throws(ConformanceFailure) {
        try expect(log.completion?.error == nil, "the attempt failed: \(describe(log.completion?.error))")
    }

    static func expectFailure(_ log: ConformanceEventLog, _ code: URLError.Code) throws(ConformanceFailure) {
        let error = log.completion?.error
        try expect((error as? URLError)?.code == code, "expected URLError(\(code.rawValue)), got \(describe(error))")
    }

    static func describe(_ error: (any Error)?) -> String {
        error.map { "\(type(of: $0)): \($0)" } ?? "no error"
    }

    static func describe(_ data: Data?) -> String {
        guard let data else { return "nil" }
        let text = String(decoding: data.prefix(80), as: UTF8.self)
        return "\(data.count) bytes (\(text.debugDescription)\(data.count > 80 ? "…" : ""))"
    }

    /// Whether `condition` holds within ``deadline`` seconds.
    static func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
        await DeferredQueueTesting.eventually(within: deadline, condition)
    }
}

/// The request a conformance server received.
final class Received: Sendable {
    private let stored = Mutex<ServerRequest?>(nil)

    func store(_ request: ServerRequest) {
        stored.withLock(owner: self) { $0 = request }
    }

    var request: ServerRequest? { stored.withLock(owner: self) { $0 } }
}
