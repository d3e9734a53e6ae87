import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// libcurl refuses to build a request head past 1 MiB and says "Out of
/// memory", the words it also has for a response head line it cannot
/// store: the failure is the request's, said so, and not retried.
@Suite("URLSession: a request head libcurl refuses is the request's fault")
struct OversizedRequestHeadTests {
    @Test func aHeadPastLibcurlsLimitFailsUnsentAndIsNotRetried() async throws {
        let server = try LoopbackServer { _ in .text("reached") }
        defer { server.shutdown() }
        let session = Session(retryPolicy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        let request = session.request(server.url("/"), headers: ["X-Big": String(repeating: "a", count: 1_100_000)])
        let result = await response(within: 120) { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.urlError?.code == .dataLengthExceedsMaximum, "\(String(describing: result?.result))")
        #expect(result?.error?.description.contains("request's head") == true)
        #expect(request.retryCount == 0)
        #expect(server.requestCount == 0)
    }

    /// The configuration's fields are part of the head libcurl builds.
    @Test func aHeadPastLibcurlsLimitThroughTheConfigurationsFieldsIsTheRequestsFault() async throws {
        let server = try LoopbackServer { _ in .text("reached") }
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.ephemeral
        // A field the request sets too is sent once, the request's (the
        // head stays under the limit without the configured one).
        configuration.httpAdditionalHeaders = ["X-Big": String(repeating: "a", count: 600_000), "x-also-big": String(repeating: "c", count: 900_000)]
        let session = Session(configuration: configuration)
        let request = session.request(server.url("/"), headers: ["X-Also-Big": String(repeating: "b", count: 500_000)])
        let result = await response(within: 120) { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(result?.error?.urlError?.code == .dataLengthExceedsMaximum, "\(String(describing: result?.result))")
        #expect(result?.error?.description.contains("request's head of about 1100") == true, "\(String(describing: result?.error))")
        #expect(server.requestCount == 0)
    }
}
