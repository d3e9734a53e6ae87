import DeferredQueue
import Dispatch

/// A transport the behaviour suites run on: what a test target that links
/// `DeferredQueueBehaviourSuites` provides.
///
/// The suites are ordinary Swift Testing suites; Swift Testing finds them in
/// any test target that links this module, and every one of them asks
/// ``TestTransport`` for its sessions. A test target answers by defining,
/// once, the function the suites call:
///
/// ```swift
/// @_silgen_name("DeferredQueueBehaviourSuites_transportUnderTest")
/// func transportUnderTest() -> any TransportUnderTest.Type { MyTransportUnderTest.self }
/// ```
///
/// The suites check the library's internals too (`@testable import`), so
/// they build in debug, as `swift test` builds by default.
///
/// A link-time hook rather than a registration call because Swift Testing
/// has no hook that runs before the first test: a suite cannot be handed its
/// transport any other way. The reference is weak so that executables that
/// link the module without running suites (snippets) still link; a test
/// target that runs the suites without defining the function crashes at the
/// first suite's first session.
public protocol TransportUnderTest {
    /// A name for test output and transport-specific expectations.
    static var name: String { get }

    /// A session on this transport with these settings (each as
    /// `Session.init(transport:…)` documents it).
    static func makeSession(
        interceptor: (any RequestInterceptor)?,
        redirectHandler: Redirector,
        eventMonitors: [any EventMonitor],
        retryPolicy: RetryPolicy?,
        maximumResponseBodySize: Int,
        maximumStreamedBodySize: Int,
        resourceTimeout: Double?,
        serializationQueue: DispatchQueue?
    ) -> Session
}

/// Defined by the test target (see ``TransportUnderTest``).
@_weakLinked @_silgen_name("DeferredQueueBehaviourSuites_transportUnderTest")
func transportUnderTest() -> any TransportUnderTest.Type

/// The transport the suites run on in this test process: the test target's
/// ``TransportUnderTest``, with the suites' defaults.
public enum TestTransport {
    /// The transport's name.
    public static var name: String { transportUnderTest().name }

    /// A session on the transport under test.
    public static func makeSession(
        interceptor: (any RequestInterceptor)? = nil,
        redirectHandler: Redirector = .follow,
        eventMonitors: [any EventMonitor] = [],
        retryPolicy: RetryPolicy? = nil,
        maximumResponseBodySize: Int = 256 << 20,
        maximumStreamedBodySize: Int = Session.defaultMaximumStreamedBodySize,
        resourceTimeout: Double? = nil,
        serializationQueue: DispatchQueue? = nil
    ) -> Session {
        transportUnderTest().makeSession(
            interceptor: interceptor, redirectHandler: redirectHandler, eventMonitors: eventMonitors,
            retryPolicy: retryPolicy, maximumResponseBodySize: maximumResponseBodySize,
            maximumStreamedBodySize: maximumStreamedBodySize, resourceTimeout: resourceTimeout,
            serializationQueue: serializationQueue
        )
    }
}
