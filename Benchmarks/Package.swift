// swift-tools-version: 6.1
// Benchmarks for DeferredQueue, in their own package so the root package stays
// dependency-free. Run them with
//
//     swift package --package-path Benchmarks benchmark
//
// See BENCHMARKS.md at the repository root for what each benchmark measures.
import PackageDescription

let package = Package(
    name: "DeferredQueueBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "DeferredQueue", path: ".."),
        .package(name: "DeferredQueueAsyncHTTPClient", path: "../Transports/DeferredQueueAsyncHTTPClient"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    ],
    targets: [
        // Shared helpers: waiting, resident memory, the HTTP fixture, the
        // core scenarios' DeferredQueue and GCD-floor peers.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "DeferredQueueTesting", package: "DeferredQueue"),
            ],
            path: "Sources/BenchmarkSupport"
        ),
        // (a)–(e): DeferredQueue against the raw-GCD floor, swift-nio, OpenCombine and async/await.
        .executableTarget(
            name: "Core",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Benchmarks/Core",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // (f): resident bytes per pending deferred.
        .executableTarget(
            name: "Memory",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Benchmarks/Memory",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The HTTP clients measured in interleaved rounds (a plain executable, no plugin).
        .executableTarget(
            name: "HTTPInterleaved",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "DeferredQueue", package: "DeferredQueue"),
            ],
            path: "Sources/HTTPInterleaved"
        ),
        // The transports measured in interleaved rounds: raw AsyncHTTPClient,
        // DeferredQueue over AsyncHTTPClientTransport, and over URLSessionTransport.
        .executableTarget(
            name: "TransportInterleaved",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "DeferredQueueAsyncHTTPClient", package: "DeferredQueueAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Sources/TransportInterleaved"
        ),
        // Issue 27's tables: the raw transports and DeferredQueue on each, in
        // interleaved rounds, and one Session on every core (a plain
        // executable; see BENCHMARKS.md).
        .executableTarget(
            name: "Peers",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "DeferredQueueAsyncHTTPClient", package: "DeferredQueueAsyncHTTPClient"),
                .product(name: "DeferredQueueTesting", package: "DeferredQueue"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/Peers"
        ),
        // Resident memory during 1 GiB downloads and streams and 500 MiB
        // uploads, on both transports (issue 14; a plain executable).
        .executableTarget(
            name: "TransferMemory",
            dependencies: [
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "DeferredQueueAsyncHTTPClient", package: "DeferredQueueAsyncHTTPClient"),
                .product(name: "DeferredQueueTesting", package: "DeferredQueue"),
            ],
            path: "Sources/TransferMemory"
        ),
        // The transports with malloc counts: raw AsyncHTTPClient vs DeferredQueue over
        // AsyncHTTPClientTransport vs over URLSessionTransport.
        .executableTarget(
            name: "Transports",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "DeferredQueueAsyncHTTPClient", package: "DeferredQueueAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/Transports",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // (a)–(e) for callgrind: one scenario, DeferredQueue or the GCD floor,
        // repeated (Scripts/core-instructions.sh; a plain executable on the
        // root package alone, so it builds quickly).
        .executableTarget(
            name: "CoreInstructions",
            dependencies: ["BenchmarkSupport"],
            path: "Sources/CoreInstructions"
        ),
        // A burst of settled deferreds: threads started, how long another
        // serial queue waits behind it, CPU (a plain executable on the root package).
        .executableTarget(
            name: "Burst",
            dependencies: [.product(name: "DeferredQueue", package: "DeferredQueue")],
            path: "Sources/Burst"
        ),
        // The session layer per request on MockTransport, for callgrind (see
        // its main.swift; the root package alone, like CoreInstructions).
        .executableTarget(
            name: "SessionInstructions",
            dependencies: [
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "DeferredQueueTesting", package: "DeferredQueue"),
            ],
            path: "Sources/SessionInstructions"
        ),
        // HTTP against LoopbackServer: raw URLSession vs responseData vs serializingDecodable.
        .executableTarget(
            name: "HTTP",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "DeferredQueueTesting", package: "DeferredQueue"),
            ],
            path: "Benchmarks/HTTP",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
