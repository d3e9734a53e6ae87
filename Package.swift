// swift-tools-version: 6.0
// DeferredQueue has no package dependencies, by design: the benchmarks that
// compare it with swift-nio and OpenCombine live in their own package under
// Benchmarks/.
import PackageDescription

let package = Package(
    name: "DeferredQueue",
    // The floor of the Synchronization module (Mutex, Atomic).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "DeferredQueue", targets: ["DeferredQueue"]),
        // For tests, never for an app: MockTransport (answers from memory, for
        // code that uses a Session), HTTPTransportConformance (the transport
        // contract as checks), the loopback HTTP test server they and the
        // benchmarks use (module LoopbackServer; the demo's --offline mode
        // too), and helpers for tests that measure memory.
        .library(name: "DeferredQueueTesting", targets: ["DeferredQueueTesting", "LoopbackServer"]),
        // For transport authors, never for an app: the session's HTTP behaviour
        // suites (Swift Testing, over loopback sockets), run by a test target
        // on the transport it names (see TransportUnderTest), and the test
        // helpers they share (module TestSupport). Debug builds only, as
        // `swift test` makes them: the suites check internals (@testable).
        .library(name: "DeferredQueueBehaviourSuites", targets: ["DeferredQueueBehaviourSuites", "TestSupport"]),
        .executable(name: "HTTPDemo", targets: ["HTTPDemo"]),
    ],
    targets: [
        // Package-internal: Mutex critical sections that ThreadSanitizer can see.
        .target(name: "LockSupport"),
        // Package-internal: the system's zlib, for decoding gzip and deflate
        // bodies a bounded step at a time (ContentDecoder).
        .target(name: "CDeferredQueueZlib", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "DeferredQueue", dependencies: ["LockSupport", "CDeferredQueueZlib"]),
        // Package-internal: the C library's count of heap bytes in use, for
        // tests that judge what a transfer holds (HeapMemory).
        .target(name: "CDeferredQueueHeap"),
        .target(name: "DeferredQueueTesting", dependencies: ["DeferredQueue", "LoopbackServer", "LockSupport", "CDeferredQueueHeap"]),
        .target(name: "LoopbackServer", dependencies: ["LockSupport"]),
        // Latch, Recorder, Counter, the HTTP route fixture: every test target's helpers.
        .target(name: "TestSupport", dependencies: ["DeferredQueue", "DeferredQueueTesting", "LoopbackServer", "LockSupport"]),
        .target(
            name: "DeferredQueueBehaviourSuites",
            dependencies: ["DeferredQueue", "DeferredQueueTesting", "LoopbackServer", "TestSupport"]
        ),
        .executableTarget(name: "HTTPDemo", dependencies: ["DeferredQueue", "LoopbackServer"]),
        .testTarget(
            name: "DeferredQueueTests",
            dependencies: [
                "DeferredQueue", "DeferredQueueTesting", "DeferredQueueBehaviourSuites", "TestSupport", "LoopbackServer", "LockSupport",
            ]
        ),
        .testTarget(name: "LoopbackServerTests", dependencies: ["LoopbackServer", "DeferredQueueTesting", "TestSupport"]),
        .testTarget(name: "HTTPDemoTests", dependencies: ["HTTPDemo", "LoopbackServer", "DeferredQueueTesting", "LockSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
