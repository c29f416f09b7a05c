#!/usr/bin/env python3
"""The HTTP API at scale, by the method of ../shared/bench/scale: N zigbee2mqtt devices (its
generator) retained on a private mosquitto, `serve` with an `http` section, then:

  list_ms      GET /api/v1/devices (every device), median of 5, and its size in bytes
  filter_ms    GET /api/v1/devices?connectivity=offline, median of 5
  device_ms    GET /api/v1/devices/<id>, median of 20
  sse_p50_ms / sse_p99_ms   from publishing a device's new state on the broker to the change's
               event arriving on a `stream` client of /api/v1/changes, over CHANGES changes

  python3 scripts/bench-api.py BIN N [--changes 200]

Prints one line of JSON. Loopback only; every wait is bounded. Figures are noisy: take the median
of three runs.
"""
import argparse, http.client, json, os, shutil, socket, statistics, sys, tempfile, threading, time

import benchlib
from benchlib import scale

TOKEN = "bench-token-0123456789abcdef"


def get(port, path, timeout=60):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    started = time.perf_counter()
    connection.request("GET", path, headers={"Authorization": "Bearer " + TOKEN})
    response = connection.getresponse()
    body = response.read()
    elapsed = (time.perf_counter() - started) * 1000
    connection.close()
    if response.status != 200:
        sys.exit(f"GET {path}: {response.status} {body[:200]!r}")
    return elapsed, body


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("n", type=int)
    parser.add_argument("--changes", type=int, default=200)
    options = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="tb-bench-api-")
    procs = []
    result = {"n": options.n}
    try:
        port = benchlib.mosquitto(tmp, procs)
        publisher, messages = benchlib.retained_z2m(port, options.n, "bench-api-publisher")
        http_port = scale.free_port()
        open(os.path.join(tmp, "tokens"), "w").write(TOKEN + " bench\n")
        config = benchlib.write_config(
            tmp, port, {"listen": f"127.0.0.1:{http_port}", "bearerTokensFile": os.path.join(tmp, "tokens")})
        serve, seen = benchlib.serve_until_published(options.bin, config, tmp, port, options.n, procs, timeout=120)
        result["devices_seen"] = seen
        lists = [get(http_port, "/api/v1/devices") for _ in range(5)]
        result["list_ms"] = round(statistics.median(t for t, _ in lists), 1)
        result["list_bytes"] = len(lists[0][1])
        devices = json.loads(lists[0][1])["devices"]
        result["listed"] = len(devices)
        result["filter_ms"] = round(statistics.median(get(http_port, "/api/v1/devices?connectivity=offline")[0]
                                                      for _ in range(5)), 1)
        one = devices[len(devices) // 2]["id"]
        result["device_ms"] = round(statistics.median(get(http_port, f"/api/v1/devices/{one}")[0]
                                                      for _ in range(20)), 2)
        # Latency from a state published on the broker to its event on the stream.
        arrivals = {}
        ready = threading.Event()

        def listen():
            connection = socket.create_connection(("127.0.0.1", http_port), timeout=30)
            connection.sendall((f"GET /api/v1/changes?shape=stream HTTP/1.1\r\nHost: x\r\n"
                                f"Authorization: Bearer {TOKEN}\r\n\r\n").encode())
            buffer = b""
            while len(arrivals) < options.changes:
                try:
                    chunk = connection.recv(65536)
                except socket.timeout:
                    break
                if not chunk:
                    break
                buffer += chunk
                if not ready.is_set() and b"event: list" in buffer:
                    ready.set()
                for line in buffer.split(b"\n"):
                    if line.startswith(b"data: {\"kind\""):
                        entry = json.loads(line[6:])
                        marker = (entry.get("state") or {}).get("name")
                        arrivals.setdefault(entry["device"], time.perf_counter())
                buffer = buffer[buffer.rfind(b"\n") + 1:]
            connection.close()

        thread = threading.Thread(target=listen, daemon=True)
        thread.start()
        ready.wait(30)
        time.sleep(0.5)
        # Each change: one device's availability flips to offline (a new state, a new event).
        names = [topic[len("zigbee2mqtt/"):-len("/availability")] for topic, _ in messages
                 if topic.endswith("/availability")][: options.changes]
        sent = {}
        ids = {d["name"]: d["id"] for d in devices}
        for name in names:
            sent[ids.get(name, name)] = time.perf_counter()
            publisher.publish(f"zigbee2mqtt/{name}/availability", b'{"state":"offline"}', retain=True)
            time.sleep(0.01)
        thread.join(30)
        latencies = sorted((arrivals[i] - sent[i]) * 1000 for i in sent if i in arrivals)
        result["sse_events"] = len(latencies)
        if latencies:
            result["sse_p50_ms"] = round(statistics.median(latencies), 2)
            result["sse_p99_ms"] = round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], 2)
        result["rss_mb"] = round(scale.hwm_mb(serve.pid), 1)
    finally:
        benchlib.stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
