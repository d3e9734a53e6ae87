#!/usr/bin/env bash
# Issue 27's third column: DeferredQueue on URLSession against Alamofire 5.12
# and raw URLSession (all three without a URLCache), interleaved round by
# round in one process, the Peers scenarios, against an outside server (the
# nginx of BENCHMARKS.md). The project's packages cannot resolve Alamofire,
# so this builds a scratch package beside a checkout of it, by path:
#
#     Benchmarks/Scripts/alamofire-peer.sh <Alamofire checkout at 5.12.0> [rounds]
#
# Environment: DQ_BENCH_BASE (default http://127.0.0.1:8088), SCRATCH (the
# scratch package's folder; default a fresh one under /tmp).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
alamofire="$(realpath "${1:?usage: alamofire-peer.sh <Alamofire checkout> [rounds]}")"
rounds="${2:-5}"
scratch="${SCRATCH:-$(mktemp -d /tmp/alamofire-peer.XXXXXX)}"

mkdir -p "$scratch/Sources/AlamofirePeer"
cp "$root/Benchmarks/Scripts/AlamofirePeer.swift" "$scratch/Sources/AlamofirePeer/main.swift"
cat > "$scratch/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "AlamofirePeer",
    dependencies: [.package(path: "$alamofire"), .package(path: "$root")],
    targets: [.executableTarget(name: "AlamofirePeer", dependencies: [
        .product(name: "Alamofire", package: "$(basename "$alamofire")"),
        .product(name: "DeferredQueue", package: "$(basename "$root")"),
    ])]
)
MANIFEST
swift build -c release --package-path "$scratch" >&2
"$scratch/.build/release/AlamofirePeer" "$rounds"
