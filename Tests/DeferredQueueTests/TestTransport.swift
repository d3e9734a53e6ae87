import DeferredQueue
import DeferredQueueBehaviourSuites
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The behaviour suites (`DeferredQueueBehaviourSuites`) run on URLSession in
/// this test target; `Transports/DeferredQueueAsyncHTTPClient` runs them on
/// AsyncHTTPClient.
@_silgen_name("DeferredQueueBehaviourSuites_transportUnderTest")
func transportUnderTest() -> any TransportUnderTest.Type { URLSessionUnderTest.self }

enum URLSessionUnderTest: TransportUnderTest {
    static let name = "URLSession"

    static func makeSession(
        interceptor: (any RequestInterceptor)?,
        redirectHandler: Redirector,
        eventMonitors: [any EventMonitor],
        retryPolicy: RetryPolicy?,
        maximumResponseBodySize: Int,
        maximumStreamedBodySize: Int,
        resourceTimeout: Double?,
        serializationQueue: DispatchQueue?
    ) -> Session {
        let configuration = URLSessionConfiguration.default
        if let resourceTimeout { configuration.timeoutIntervalForResource = resourceTimeout }
        return Session(
            configuration: configuration, serializationQueue: serializationQueue, interceptor: interceptor, redirectHandler: redirectHandler,
            eventMonitors: eventMonitors, retryPolicy: retryPolicy, maximumResponseBodySize: maximumResponseBodySize,
            maximumStreamedBodySize: maximumStreamedBodySize
        )
    }
}
