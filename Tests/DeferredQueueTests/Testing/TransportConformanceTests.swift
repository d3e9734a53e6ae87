import DeferredQueue
import DeferredQueueTesting
import Testing

/// The transport contract, checked on URLSessionTransport through the kit
/// any transport author runs (the AsyncHTTPClient package runs it too).
@Suite("HTTPTransportConformance on URLSessionTransport", .timeLimit(.minutes(5)))
struct TransportConformanceTests {
    @Test(arguments: HTTPTransportConformance.checks)
    func urlSessionTransportKeepsTheContract(_ check: HTTPTransportConformance.Check) async throws {
        try await HTTPTransportConformance { URLSessionTransport() }.run(check)
    }

    /// The kit finds a broken transport: MockTransport never talks to the
    /// checks' server, so the checks about what reached it must fail.
    @Test(arguments: [
        "a collected body arrives whole in the completion, after its head",
        "the request goes out as prepared: method, target, headers, body",
        "a refused connection is URLError.cannotConnectToHost",
        "a collected body past its limit stops with responseTooLarge",
        "a request that breaks RFC 9110's syntax fails with its requestSyntaxViolation, unsent",
    ])
    func theChecksFailATransportThatBreaksTheContract(_ name: String) async throws {
        let check = try #require(HTTPTransportConformance.checks.first { $0.name == name })
        let broken = HTTPTransportConformance { MockTransport(replying: .status(204)) }
        await #expect(throws: HTTPTransportConformance.Failure.self) { try await broken.run(check) }
    }
}
