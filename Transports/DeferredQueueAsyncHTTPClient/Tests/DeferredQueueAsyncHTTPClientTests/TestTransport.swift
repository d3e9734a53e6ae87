import DeferredQueueAsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import DeferredQueue

/// The transport the shared HTTP behaviour suites (the symlinked `HTTP/` and
/// `Support/` folders) run on in this test target: AsyncHTTPClient.
enum TestTransport {
    /// A name for test output and transport-specific expectations.
    static let name = "AsyncHTTPClient"

    /// A session on this target's transport.
    static func makeSession(
        interceptor: (any RequestInterceptor)? = nil,
        redirectHandler: Redirector = .follow,
        eventMonitors: [any EventMonitor] = [],
        retryPolicy: RetryPolicy? = nil,
        maximumResponseBodySize: Int = 256 << 20,
        maximumStreamedBodySize: Int = Session.defaultMaximumStreamedBodySize,
        resourceTimeout: Double? = nil
    ) -> Session {
        Session(
            transport: AsyncHTTPClientTransport(), interceptor: interceptor, redirectHandler: redirectHandler,
            eventMonitors: eventMonitors, retryPolicy: retryPolicy, maximumResponseBodySize: maximumResponseBodySize,
            maximumStreamedBodySize: maximumStreamedBodySize, resourceTimeout: resourceTimeout
        )
    }
}
