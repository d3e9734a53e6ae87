// swift-tools-version: 6.0
// DeferredQueue's transport over swift-server's AsyncHTTPClient, in its own
// package so that the root package stays dependency-free:
//
//     let session = Session(transport: AsyncHTTPClientTransport())
//
// Its tests compile the root package's HTTP behaviour suites (symlinked
// folders under Tests/) against this transport. Run them with
//
//     swift test --package-path Transports/AsyncHTTPClient
import PackageDescription

let package = Package(
    name: "DeferredQueueAsyncHTTPClient",
    // The root package's floor (the Synchronization module).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "DeferredQueueAsyncHTTPClient", targets: ["DeferredQueueAsyncHTTPClient"]),
    ],
    dependencies: [
        .package(name: "DeferredQueue", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // Already AsyncHTTPClient's dependencies: named for their error types.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // For its no-op tracer, which the transport's own client leaves out.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Test-only: the TLS tests make their CA and certificates at run time.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
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
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // HTTP/ and Support/ are symlinks to the root test target's folders:
        // the same suites, run on this transport (see TestTransport.swift).
        .testTarget(
            name: "DeferredQueueAsyncHTTPClientTests",
            dependencies: [
                "DeferredQueueAsyncHTTPClient",
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "LoopbackServer", package: "DeferredQueue"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
