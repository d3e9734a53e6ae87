import DeferredQueueAsyncHTTPClient
import DeferredQueueTesting
import Testing

/// The transport contract, checked on AsyncHTTPClientTransport through the
/// kit any transport author runs.
@Suite("HTTPTransportConformance on AsyncHTTPClientTransport", .timeLimit(.minutes(5)))
struct TransportConformanceTests {
    @Test(arguments: HTTPTransportConformance.checks)
    func asyncHTTPClientTransportKeepsTheContract(_ check: HTTPTransportConformance.Check) async throws {
        try await HTTPTransportConformance { AsyncHTTPClientTransport() }.run(check)
    }
}
