#!/usr/bin/env bash
# The MQTT load against the C relay with two configurations of the bridge interleaved, and their medians.
#
#   scripts/bench-relay-pairs.sh BENCH_DIR BINARY [ROUNDS] [CONFIG_A] [CONFIG_B]
#   BINARY_B=OTHER MAPPINGS_B=ITS_MAPPINGS scripts/bench-relay-pairs.sh BENCH_DIR BINARY ROUNDS '{}' '{}'
#
# BENCH_DIR is a built copy of ../shared/bench (see BENCHMARKS.md). Each round runs its run-baseline.sh (QoS 0:
# the broker, the C relay, then `BINARY serve`, a fresh bridge and data directory for each phase) once with
# CONFIG_A and once with CONFIG_B (JSON for `serve --config`; by default history on, `{}`, and history off);
# with BINARY_B set, CONFIG_B's runs are that binary's (with MAPPINGS_B: another commit's mapping files).
# LATENCY_RATE and LATENCY_MESSAGES pass through (5000 and 25000; 1000 and 10000: a thousand changes a
# second). Prints each run (flat out ÷ relay, p99 at the rate ÷ relay's, the bridge's p99 in µs) and the
# medians. Loopback only; everything the bench starts it stops by PID.
set -euo pipefail
BENCH=$(cd "$1" && pwd) BIN=$(realpath "$2") ROUNDS=${3:-3}
BIN_B=$(realpath "${BINARY_B:-$2}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
MAPPINGS_B=$(realpath "${MAPPINGS_B:-$HERE/mappings}")
CONFIG_A=${4:-'{}'} CONFIG_B=${5:-'{"history": {"enabled": false}}'}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-pairs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
printf '%s\n' "$CONFIG_A" >"$WORK/a.json"
printf '%s\n' "$CONFIG_B" >"$WORK/b.json"
export LATENCY_RATE=${LATENCY_RATE:-5000} LATENCY_MESSAGES=${LATENCY_MESSAGES:-25000}
for round in $(seq "$ROUNDS"); do
	for label in a b; do
		binary=$BIN mappings=$HERE/mappings
		[ "$label" = b ] && binary=$BIN_B mappings=$MAPPINGS_B
		(cd "$BENCH" && QOS_LEVELS=0 BRIDGE_WARMUP=5 \
			BRIDGE_CMD="$binary serve --config $WORK/$label.json --broker \"\$MQTT_URL\" --data-dir $WORK/data-\$\$ \
--mappings $mappings --log-level warning" ./run-baseline.sh) 2>&1 |
			sed -n "s/^RESULT /$label /p" >>"$WORK/results" || echo "round $round, $label: no result" >&2
	done
done
python3 - "$WORK/results" "$CONFIG_A" "$CONFIG_B" "$BIN" "$BIN_B" <<'EOF'
import json, statistics, sys
rate = float(__import__("os").environ["LATENCY_RATE"])
runs = {"a": [], "b": []}
current = {}
for line in open(sys.argv[1]):
    label, text = line.split(" ", 1)
    result = json.loads(text)
    current[(label, result["label"], result["rate_target"])] = result
    if result["label"] == "bridge" and result["rate_target"] == rate:
        wanted = (("relay", 0.0), ("relay", rate), ("bridge", 0.0))
        parts = [current.get((label, name, target)) for name, target in wanted]
        if None in parts:
            print(f"{label}: a run without its relay or flat-out rows, left out", file=sys.stderr)
            continue
        relay_max, relay_rate, bridge_max = parts
        if not (bridge_max.get("msgs_per_s") and (result.get("latency_us") or {}).get("p99")):
            print(f"{label}: a run where the bridge passed nothing on, left out", file=sys.stderr)
            continue
        runs[label].append((bridge_max["msgs_per_s"] / relay_max["msgs_per_s"],
                            result["latency_us"]["p99"] / relay_rate["latency_us"]["p99"],
                            result["latency_us"]["p99"], bridge_max["msgs_per_s"]))
for label, config in (("a", sys.argv[2] + " " + sys.argv[4]), ("b", sys.argv[3] + " " + sys.argv[5])):
    rows = runs[label]
    if not rows:
        print(f"{config}: no complete run"); continue
    print(f"{config}: {len(rows)} runs")
    for flat, p99, micro, rate_max in rows:
        print(f"  flat out {flat:.2f}x ({rate_max} msg/s)  p99 at {rate:.0f} msg/s {p99:.2f}x ({micro} us)")
    median = lambda index: statistics.median(row[index] for row in rows)
    print(f"  median: flat out {median(0):.2f}x ({median(3):.0f} msg/s), p99 {median(1):.2f}x ({median(2):.0f} us)")
EOF
