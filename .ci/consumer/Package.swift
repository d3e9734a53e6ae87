// swift-tools-version: 6.0
// A package outside this repository that uses DeferredQueue and its
// AsyncHTTPClient transport the way the README says: by their public URLs.
// .ci/check-consumer copies it to a temporary folder and builds it offline,
// with SwiftPM mirrors pointing those URLs at local bare repositories (this
// repository at HEAD, and the transport split out of it).
import PackageDescription

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/deferredqueue/DeferredQueue", from: "0.3.0"),
        .package(url: "https://github.com/deferredqueue/DeferredQueueAsyncHTTPClient", from: "0.3.0"),
    ],
    targets: [
        .executableTarget(
            name: "Consumer",
            dependencies: [
                .product(name: "DeferredQueue", package: "DeferredQueue"),
                .product(name: "DeferredQueueAsyncHTTPClient", package: "DeferredQueueAsyncHTTPClient"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
