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
        .executable(name: "HTTPDemo", targets: ["HTTPDemo"]),
    ],
    targets: [
        // Package-internal: Mutex critical sections that ThreadSanitizer can see.
        .target(name: "LockSupport"),
        // Package-internal: the system's zlib, for decoding gzip and deflate
        // bodies a bounded step at a time (ContentDecoder).
        .target(name: "CDeferredQueueZlib", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "DeferredQueue", dependencies: ["LockSupport", "CDeferredQueueZlib"]),
        .target(name: "DeferredQueueTesting", dependencies: ["DeferredQueue", "LoopbackServer"]),
        .target(name: "LoopbackServer", dependencies: ["LockSupport"]),
        .executableTarget(name: "HTTPDemo", dependencies: ["DeferredQueue", "LoopbackServer"]),
        .testTarget(
            name: "DeferredQueueTests", dependencies: ["DeferredQueue", "DeferredQueueTesting", "LoopbackServer", "LockSupport"]
        ),
        .testTarget(name: "LoopbackServerTests", dependencies: ["LoopbackServer", "DeferredQueueTesting"]),
        .testTarget(name: "HTTPDemoTests", dependencies: ["HTTPDemo", "LoopbackServer", "DeferredQueueTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
