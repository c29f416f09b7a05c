#!/usr/bin/env bash
# The demo: a private mosquitto on a free 127.0.0.1 port, `traitbridge serve`, and a pretend
# zigbee2mqtt (mosquitto_pub) with three devices from examples/. Shows the unified state, a
# command and its confirmation, the cloud's view of the same light merged with it (SYNC and QUERY
# from examples/demo-cloud-*.json: partiallyOnline, mixed), a device going offline and why; then
# stops everything it started.
# Usage: scripts/demo.sh [--keep]   (--keep leaves the bridge running until Ctrl-C)
set -euo pipefail
cd "$(dirname "$0")/.."
keep=${1:-}
bin=.build/release/traitbridge
[ -x "$bin" ] && [ "$bin" -nt Package.swift ] || swift build -c release --product traitbridge >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/traitbridge-demo.XXXXXX")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pids=()
cleanup() {
    [ "$BASHPID" = "$$" ] || return 0  # background subshells inherit the trap: only the script itself cleans up
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done; rm -rf "$work"
}
trap cleanup EXIT
trap "exit 130" INT TERM
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 & pids+=($!)
for _ in $(seq 50); do mosquitto_pub -p "$port" -t probe -n 2>/dev/null && break; sleep 0.1; done
"$bin" serve --broker "mqtt://127.0.0.1:$port" --data-dir "$work/data" --mappings mappings --log-level notice 2>"$work/serve.log" & pids+=($!)
sleep 1
pub() { mosquitto_pub -p "$port" -t "$1" -m "$2" ${3:-}; }
show() { timeout 2 mosquitto_sub -p "$port" -t "traitbridge/devices/$1/state" -C 1 | python3 scripts/show-state.py; }

echo "== zigbee2mqtt announces three devices on the private broker 127.0.0.1:$port"
pub zigbee2mqtt/bridge/state '{"state":"online"}' -r
pub zigbee2mqtt/bridge/devices "$(python3 -c 'import json; print(json.dumps(json.load(open("examples/demo-zigbee2mqtt-devices.json"))))')" -r
pub "zigbee2mqtt/Hall light/availability" online -r
pub "zigbee2mqtt/Hall light" '{"state":"OFF","brightness":60,"color_temp":370}'
pub zigbee2mqtt/Climate '{"temperature":21.37,"humidity":48.2,"battery":97}'
sleep 0.5
echo "== the unified view (traitbridge/devices/<id>/state)"
show z2m-0x00158d0001000001
show z2m-0x00158d0001000002
echo "== a command: traitbridge/devices/z2m-0x00158d0001000001/set {\"trait\":\"matter.OnOff\",\"command\":\"on\"}"
mosquitto_sub -p "$port" -v -C 2 -W 5 -t "zigbee2mqtt/Hall light/set" -t "traitbridge/devices/z2m-0x00158d0001000001/set/result" > "$work/command.log" 2>/dev/null &
sub=$!
sleep 0.3
pub traitbridge/devices/z2m-0x00158d0001000001/set '{"id":"demo-1","trait":"matter.OnOff","command":"on"}'
sleep 0.3
pub "zigbee2mqtt/Hall light" '{"state":"ON","brightness":60,"color_temp":370}'   # the device's echo
wait "$sub" || true
sed 's/^/  /' "$work/command.log"
echo "== the cloud knows the Hall light too: traitbridge sync import examples/demo-cloud-sync.json"
"$bin" sync import examples/demo-cloud-sync.json --broker "mqtt://127.0.0.1:$port" | sed 's/^/  /'
echo "== the cloud says the light is unreachable (QUERY online:false); the local path still works"
"$bin" query import examples/demo-cloud-query.json --broker "mqtt://127.0.0.1:$port" | sed 's/^/  /'
sleep 0.3
"$bin" status --broker "mqtt://127.0.0.1:$port" "Hall light" | sed 's/^/  /'
echo "== the light's availability goes offline: why?"
pub "zigbee2mqtt/Hall light/availability" offline -r
sleep 0.3
show z2m-0x00158d0001000001
echo "== traitbridge status"
"$bin" status --broker "mqtt://127.0.0.1:$port" | sed 's/^/  /'
if [ "$keep" = "--keep" ]; then echo "== bridge running on mqtt://127.0.0.1:$port; Ctrl-C stops everything"; wait "${pids[1]}"; fi
echo "== done; stopping the bridge and the broker"
