import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import DeferredQueue

/// The transport the shared HTTP behaviour suites run on in this test
/// target: URLSession. The `Transports/DeferredQueueAsyncHTTPClient` package's test
/// target compiles the same suites with its own `TestTransport`.
enum TestTransport {
    /// A name for test output and transport-specific expectations.
    static let name = "URLSession"

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
        let configuration = URLSessionConfiguration.default
        if let resourceTimeout { configuration.timeoutIntervalForResource = resourceTimeout }
        return Session(
            configuration: configuration, interceptor: interceptor, redirectHandler: redirectHandler,
            eventMonitors: eventMonitors, retryPolicy: retryPolicy, maximumResponseBodySize: maximumResponseBodySize,
            maximumStreamedBodySize: maximumStreamedBodySize
        )
    }
}
