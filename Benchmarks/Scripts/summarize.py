#!/usr/bin/env python3
"""Turns `swift package benchmark --format markdown` output into the tables of
BENCHMARKS.md: the p50 of every benchmark, with each core peer as a ratio to
the GCD floor measured in the same run and each HTTP client as a ratio to raw
URLSession.

    swift package --package-path Benchmarks benchmark --format markdown --no-progress > run.md
    python3 Benchmarks/Scripts/summarize.py run.md
"""
import re
import sys

TIME_UNITS = {"ns": 1e-9, "μs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
COUNT_UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}
# Work items per iteration, to report per-item figures next to per-iteration ones.
ITEMS = {"(a)": 1, "(b)": 100_000, "(c)": 1_000, "(d)": 1_000, "(e)": 10_000}
HTTP_CONCURRENCY = 64


def parse(path):
    """{benchmark name: {metric: p50 in base units (seconds, counts)}}"""
    results, current = {}, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("### "):
            current = line[4:].strip()
            results[current] = {}
            continue
        if current is None or not line.startswith("| ") or line.startswith("| Metric"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 4:
            continue
        label, p50 = cells[0], cells[3]
        try:
            value = float(p50)
        except ValueError:
            continue
        match = re.match(r"(.*?)\s*(?:\(([^)]*)\))?\s*\*?$", label)
        metric, unit = match.group(1).strip(), (match.group(2) or "").strip()
        if metric.startswith("Time"):
            value *= TIME_UNITS.get(unit, 1)
            metric = "time"
        elif metric.startswith("Malloc"):
            value *= COUNT_UNITS.get(unit, 1)
            metric = "mallocs"
        elif metric.startswith("Throughput"):
            value *= COUNT_UNITS.get(unit.replace("# / s", "").strip(), 1)
            metric = "throughput"
        results[current][metric] = value
    return results


def fmt_time(seconds):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def core_table(results):
    rows = ["| scenario | peer | ratio to floor | p50 per iteration | per item | mallocs per item |",
            "|:--|:--|--:|--:|--:|--:|"]
    scenarios = sorted({name.split(" · ")[0] for name in results if name.startswith("(") and not name.startswith("(f)")})
    for scenario in scenarios:
        floor = results.get(f"{scenario} · GCD floor", {}).get("time")
        items = ITEMS.get(scenario[:3], 1)
        for name in sorted(n for n in results if n.startswith(scenario + " · ")):
            peer = name.split(" · ", 1)[1]
            metrics = results[name]
            time = metrics.get("time")
            ratio = f"{time / floor:.2f}×" if time and floor else "–"
            mallocs = metrics.get("mallocs")
            rows.append(f"| {scenario} | {peer} | {ratio} | {fmt_time(time) if time else '–'} | "
                        f"{fmt_time(time / items) if time else '–'} | "
                        f"{mallocs / items:.2f} |" if mallocs is not None else
                        f"| {scenario} | {peer} | {ratio} | {fmt_time(time) if time else '–'} | "
                        f"{fmt_time(time / items) if time else '–'} | – |")
    return "\n".join(rows)


def memory_table(results):
    rows = ["| peer | B/pending |", "|:--|--:|"]
    for name in sorted(n for n in results if n.startswith("(f)")):
        value = results[name].get("B/pending")
        rows.append(f"| {name.split(' · ', 1)[1]} | {value:.0f} |" if value is not None else f"| {name} | – |")
    return "\n".join(rows)


# Each DeferredQueue HTTP client and the raw URLSession client doing the same work.
HTTP_PEERS = {
    "responseData": "raw URLSession",
    "serializingDecodable async": "raw URLSession async + JSONDecoder",
}


def http_table(results):
    rows = ["| scenario | client | ratio to raw URLSession | ratio to its raw peer | p50 latency | req/s | "
            "mallocs per request |",
            "|:--|:--|--:|--:|--:|--:|--:|"]
    for scenario in sorted({n.split(" · ")[0] for n in results if n.startswith("HTTP")}):
        per_iteration = HTTP_CONCURRENCY if "concurrent" in scenario else 1
        raw = results.get(f"{scenario} · raw URLSession", {}).get("time")
        for name in sorted(n for n in results if n.startswith(scenario + " · ")):
            client = name.split(" · ", 1)[1]
            metrics = results[name]
            time = metrics.get("time")
            ratio = f"{time / raw:.2f}×" if time and raw else "–"
            peer = results.get(f"{scenario} · {HTTP_PEERS.get(client, '')}", {}).get("time")
            peer_ratio = f"{time / peer:.2f}×" if time and peer and client in HTTP_PEERS else ""
            rps = per_iteration / time if time else 0
            mallocs = metrics.get("mallocs")
            rows.append(f"| {scenario} | {client} | {ratio} | {peer_ratio} | {fmt_time(time)} | {rps:,.0f} | "
                        + (f"{mallocs / per_iteration:.0f} |" if mallocs is not None else "– |"))
    return "\n".join(rows)


def main():
    results = parse(sys.argv[1])
    print("### Core (a)–(e)\n")
    print(core_table(results))
    print("\n### (f) resident bytes per pending deferred\n")
    print(memory_table(results))
    print("\n### HTTP\n")
    print(http_table(results))


if __name__ == "__main__":
    main()
