#!/usr/bin/env bash
# Instructions per request of each client of the Peers harness, counted by
# callgrind: (Ir(2N requests) − Ir(N)) / N, the client's process only. Point
# DQ_BENCH_BASE at an outside server (the nginx of BENCHMARKS.md), or the
# in-process LoopbackServer's instructions are counted too.
#
#     DQ_BENCH_BASE=http://127.0.0.1:8088 Benchmarks/Scripts/peer-instructions.sh [scenario] [N]
#
# scenario: sequential (default), allInFlight, window or big; N default 200.
# Environment: SCRATCH (build directory; default Benchmarks/.build), SKIP_BUILD=1,
# RUNS (default 1): the median of that many pairs of processes per client. A
# large body's count moves by a few percent from one process to the next
# (where the heap puts the buffers decides memcpy's path), so `big` wants 3.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$(cd "$root" && realpath -m "${SCRATCH:-Benchmarks/.build}")"
scenario="${1:-sequential}"
count="${2:-200}"
runs="${RUNS:-1}"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    swift build -c release --package-path "$root/Benchmarks" --scratch-path "$scratch" --product Peers >&2
fi
# valgrind 3.19 cannot read the DWARF that Swift 6.3 emits: count on a stripped copy.
binary="$(mktemp /tmp/Peers.XXXXXX)"
out="$(mktemp /tmp/peer-instructions.XXXXXX)"
trap 'rm -f "$binary" "$out"' EXIT
cp "$scratch/release/Peers" "$binary"
strip --strip-debug "$binary"
chmod +x "$binary"

instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$out" "$binary" once "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "instructions per request, $scenario, (Ir($((2 * count))) − Ir($count)) / $count, median of $runs, against ${DQ_BENCH_BASE:-the in-process LoopbackServer}:"
declare -A per
for client in rawURLSession rawURLSessionDelegate oursURLSession rawAHC rawAHCAsync rawAHCDelegate oursAHC oursAHCAsync; do
    samples=()
    for _ in $(seq "$runs"); do
        one="$(instructions "$client" "$scenario" "$count")"
        two="$(instructions "$client" "$scenario" "$((2 * count))")"
        samples+=($(( (two - one) / count )))
    done
    per[$client]="$(printf '%s\n' "${samples[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")"
done
for client in rawURLSession rawURLSessionDelegate oursURLSession rawAHC rawAHCAsync rawAHCDelegate oursAHC oursAHCAsync; do
    case "$client" in *AHC*) raw=rawAHC ;; *) raw=rawURLSession ;; esac
    printf '  %-22s %10d  %5.2f× %s\n' "$client" "${per[$client]}" "$(echo "${per[$client]} / ${per[$raw]}" | bc -l)" "$raw"
done
