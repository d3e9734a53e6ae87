import DeferredQueue
import DeferredQueueAsyncHTTPClient
import DeferredQueueBehaviourSuites
import Dispatch

/// The root package's behaviour suites (`DeferredQueueBehaviourSuites`) run
/// on AsyncHTTPClient in this test target.
@_silgen_name("DeferredQueueBehaviourSuites_transportUnderTest")
func transportUnderTest() -> any TransportUnderTest.Type { AsyncHTTPClientUnderTest.self }

enum AsyncHTTPClientUnderTest: TransportUnderTest {
    static let name = "AsyncHTTPClient"

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
        Session(
            transport: AsyncHTTPClientTransport(), serializationQueue: serializationQueue, interceptor: interceptor, redirectHandler: redirectHandler,
            eventMonitors: eventMonitors, retryPolicy: retryPolicy, maximumResponseBodySize: maximumResponseBodySize,
            maximumStreamedBodySize: maximumStreamedBodySize, resourceTimeout: resourceTimeout
        )
    }
}
