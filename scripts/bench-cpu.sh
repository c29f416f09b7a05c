#!/usr/bin/env bash
# The CPU a translator spends per message under ../shared/bench's load: the bridge or the C relay beside it.
#
#   scripts/bench-cpu.sh MQTT_BENCH (BINARY|relay) [MESSAGES] [RATE]
#
# MQTT_BENCH is ../shared/bench's mqtt-bench, built (see BENCHMARKS.md). Starts a private mosquitto on a
# 127.0.0.1 port, then `BINARY serve` (or `mqtt-bench relay`), describes 1 000 sensors and warms them up,
# then drives MESSAGES (200 000) at RATE msg/s (0: flat out) while `perf stat -e task-clock` counts the
# translator's CPU time (every thread, user and system). Prints one line: msg/s, CPU µs per message, p50 and
# p99 latency. Everything it starts is stopped by PID; every wait is bounded. SERVE_CONFIG='{…}' gives
# `serve` a config file with that JSON (SERVE_CONFIG='{"history": {"enabled": false}}': history off).
# MAPPINGS=<dir> gives it those mapping files (another commit's binary needs its own).
set -euo pipefail
BENCH=$1 BIN=$2 N=${3:-200000} RATE=${4:-0}
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-cpu.XXXXXX")
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PIDS=()
cleanup() {
	for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	sleep 0.5
	for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\nset_tcp_nodelay true\n' \
	"$PORT" >"$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" >"$WORK/mosquitto.log" 2>&1 &
PIDS+=($!)
sleep 0.3
if [ "$BIN" = relay ]; then
	"$BENCH" relay --port "$PORT" >"$WORK/translator.log" 2>&1 &
else
	CONFIG=()
	if [ -n "${SERVE_CONFIG:-}" ]; then
		printf '%s\n' "$SERVE_CONFIG" >"$WORK/config.json"
		CONFIG=(--config "$WORK/config.json")
	fi
	"$BIN" serve "${CONFIG[@]}" --broker "mqtt://127.0.0.1:$PORT" --data-dir "$WORK/data" \
		--mappings "${MAPPINGS:-$HERE/mappings}" --log-level warning >"$WORK/translator.log" 2>&1 &
fi
TRANSLATOR=$!
PIDS+=($TRANSLATOR)
sleep 1
"$BENCH" drive --port "$PORT" --devices 1000 --messages 2000 --rate 2000 --warmup-seconds 4 --idle-seconds 5 \
	--json >"$WORK/warm.txt" 2>&1
perf stat -e task-clock -x, -o "$WORK/stat.txt" -p "$TRANSLATOR" &
STAT=$!
PIDS+=($STAT)
sleep 0.2
"$BENCH" drive --port "$PORT" --devices 1000 --messages "$N" --rate "$RATE" --warmup-seconds 1 --idle-seconds 3 \
	--timeout-seconds 120 --json >"$WORK/drive.txt" 2>&1
kill -INT "$STAT"
wait "$STAT" || true
python3 - "$N" "$WORK/stat.txt" "$WORK/drive.txt" <<'PY'
import json, sys
messages, stat, drive = int(sys.argv[1]), sys.argv[2], sys.argv[3]
milliseconds = next(float(l.split(",")[0]) for l in open(stat) if ",task-clock," in l)
result = json.loads(open(drive).read().strip().splitlines()[-1].split("RESULT ", 1)[-1])
latency = result["latency_us"]
print(f"msg/s {result['msgs_per_s']}  cpu_us_per_message {milliseconds * 1000 / messages:.1f}  "
      f"p50_us {latency['p50']}  p99_us {latency['p99']}  matched {result['matched']}/{messages}")
PY
