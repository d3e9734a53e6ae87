// swift-tools-version: 6.0
// DeferredQueue's transport over swift-server's AsyncHTTPClient, in its own
// package so that the root package stays dependency-free:
//
//     let session = Session(transport: AsyncHTTPClientTransport())
//
// It lives in two places. In DeferredQueue's repository, at
// Transports/DeferredQueueAsyncHTTPClient, it builds against the root package
// two folders up, and its test target runs the root's HTTP behaviour suites
// (the DeferredQueueBehaviourSuites product) and the transport conformance
// checks (DeferredQueueTesting) on this transport:
//
//     swift test --package-path Transports/DeferredQueueAsyncHTTPClient
//
// Published, this folder is the root of its own repository
// (https://github.com/deferredqueue/DeferredQueueAsyncHTTPClient, tagged with
// DeferredQueue's versions), which depends on DeferredQueue by URL and has no
// test target (the suites stay with the root). .ci/run builds a consumer
// against exactly that split, offline.
import Foundation
import PackageDescription

/// True in DeferredQueue's repository: the root package sits two folders up.
let inRootRepository = FileManager.default.fileExists(
    atPath: Context.packageDirectory + "/../../Sources/DeferredQueue/DeferredQueue.docc"
)

let deferredQueue: Package.Dependency = inRootRepository
    ? .package(name: "DeferredQueue", path: "../..")
    : .package(url: "https://github.com/deferredqueue/DeferredQueue", from: "0.3.0")

// In-tree only. TestTransport.swift names this transport to the suites.
let tests: [Target] = inRootRepository ? [
    .testTarget(
        name: "DeferredQueueAsyncHTTPClientTests",
        dependencies: [
            "DeferredQueueAsyncHTTPClient",
            .product(name: "DeferredQueue", package: "DeferredQueue"),
            // MockTransport, HTTPTransportConformance, the loopback test server.
            .product(name: "DeferredQueueTesting", package: "DeferredQueue"),
            // The session's behaviour suites and their helpers (TestSupport).
            .product(name: "DeferredQueueBehaviourSuites", package: "DeferredQueue"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]
    ),
] : []

// Test-only, in-tree only: the TLS tests make their CA and certificates at
// run time, so no private key is committed.
let testDependencies: [Package.Dependency] = inRootRepository ? [
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
] : []

let package = Package(
    name: "DeferredQueueAsyncHTTPClient",
    // The root package's floor (the Synchronization module).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "DeferredQueueAsyncHTTPClient", targets: ["DeferredQueueAsyncHTTPClient"]),
    ],
    dependencies: [
        deferredQueue,
        // The floors: .ci/run builds this package at these versions and at the newest.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already AsyncHTTPClient's dependencies: named for their error types.
        // swift-nio 2.101.3: before it, NIO's HTTP/1 decoder refuses a response
        // head of more than 256 fields, so the session never saw (nor capped)
        // a flood of cookies (HostileCookieTests).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // HTTP/2's errors (a malformed response, a reset stream), which AsyncHTTPClient passes on.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // For its no-op tracer, which the transport's own client leaves out.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Server trust: reading the leaf certificate, its names and signature.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ] + testDependencies,
    targets: [
        .target(
            name: "DeferredQueueAsyncHTTPClient",
            dependencies: [
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
    ] + tests,
    swiftLanguageModes: [.v6]
)
