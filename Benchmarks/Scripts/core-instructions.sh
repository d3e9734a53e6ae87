#!/usr/bin/env bash
# Instructions per item for the core scenarios (a)–(e) and their GCD floors,
# counted by callgrind on the CoreInstructions harness (see BENCHMARKS.md,
# "Reproduce"): (Ir(11 repetitions) − Ir(1)) / 10 / items per repetition.
#
#     Benchmarks/Scripts/core-instructions.sh [scenario …]     # default: a b c d e
#
# Environment: SCRATCH (build directory, relative to the repository root;
# default Benchmarks/.build, the one `swift run --package-path Benchmarks` uses),
# B_CHAINS (chains per repetition of (b), default 10000: the benchmark's
# 100,000 take minutes under callgrind), REPS (default 11), SKIP_BUILD=1.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$(cd "$root" && realpath -m "${SCRATCH:-Benchmarks/.build}")"
chains="${B_CHAINS:-10000}"
reps="${REPS:-11}"
scenarios=("$@")
[ ${#scenarios[@]} -eq 0 ] && scenarios=(a b c d e)

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    swift build -c release --package-path "$root/Benchmarks" --scratch-path "$scratch" \
        --product CoreInstructions >&2
fi
# valgrind 3.19 cannot read the DWARF that Swift 6.3 emits: count on a stripped copy.
binary="$(mktemp /tmp/CoreInstructions.XXXXXX)"
out="$(mktemp /tmp/core-instructions.XXXXXX)"
trap 'rm -f "$binary" "$out"' EXIT
cp "$scratch/release/CoreInstructions" "$binary"
strip --strip-debug "$binary"
chmod +x "$binary"

# Total instructions of one run: `instructions <scenario> <repetitions> [items]`.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$out" "$binary" "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# Items per repetition, and the override passed to the harness.
items() {
    case "$1" in
        a | c | d) echo 1000 ;;
        b) echo $((chains * 3)) ;; # per step
        e) echo 10000 ;;
    esac
}

per_item() {
    local name="$1" letter="$2" extra=()
    [ "$letter" = b ] && extra=("$chains")
    local one many
    one=$(instructions "$name" 1 "${extra[@]}")
    many=$(instructions "$name" "$reps" "${extra[@]}")
    echo $(((many - one) / (reps - 1) / $(items "$letter")))
}

printf '| %-9s | %9s | %13s | %6s |\n' scenario "GCD floor" DeferredQueue ratio
printf '|:%s|%s:|%s:|%s:|\n' ---------- ---------- -------------- -------
for letter in "${scenarios[@]}"; do
    floor=$(per_item "floor-$letter" "$letter")
    dq=$(per_item "$letter" "$letter")
    ratio=$(awk -v d="$dq" -v f="$floor" 'BEGIN { printf "%.3f", d / f }')
    printf '| (%s)       | %9s | %13s | %5s× |\n' "$letter" "$floor" "$dq" "$ratio"
done
