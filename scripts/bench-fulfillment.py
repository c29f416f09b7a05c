#!/usr/bin/env python3
"""Throughput of `POST /smarthome` QUERY against a real `serve` with N zigbee2mqtt lights.

  scripts/bench-fulfillment.py [--devices 500] [--runs 3] [--seconds 10] [--connections 8] [--binary BIN]

Starts a private mosquitto on a free 127.0.0.1 port, publishes N retained zigbee2mqtt lights (the
demo's Hall light, cycled with new addresses), starts `.build/release/traitbridge serve` with an
`http` section on another free loopback port, waits until SYNC lists every light, then loads the
endpoint with wrk (installed from Debian's packages when missing) for two requests: a QUERY of one
light (what Google sends after a voice query) and a QUERY of all N. Prints requests/s and p99 of
each run and the median of the runs. --binary runs that build instead of building this tree's (another
commit's, for a comparison). Only loopback; every wait is bounded.
"""
import argparse, json, os, re, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "bench-token-0123456789abcdef"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_wrk():
    if shutil.which("wrk"):
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "wrk"], check=True)


def wait(condition, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.1)
    sys.exit(f"bench-fulfillment: timed out after {seconds} s waiting for {what}")


def post(url, body):
    request = urllib.request.Request(url, data=body.encode(), headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def wrk(url, body, seconds, connections, work):
    script = os.path.join(work, "query.lua")
    with open(script, "w") as f:
        f.write('wrk.method = "POST"\n')
        f.write(f'wrk.headers["Authorization"] = "Bearer {TOKEN}"\n')
        f.write('wrk.headers["Content-Type"] = "application/json"\n')
        f.write(f"wrk.body = {json.dumps(body)}\n")
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "5s", "-s", script, url],
        capture_output=True, text=True, timeout=seconds + 60).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        sys.exit(f"bench-fulfillment: {errors.group(1)} requests failed:\n{out}")
    return rate, float(p99.group(1)) * scale


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--binary")
    args = parser.parse_args()
    ensure_wrk()
    binary = os.path.abspath(args.binary) if args.binary else os.path.join(ROOT, ".build/release/traitbridge")
    if not args.binary:
        subprocess.run(["swift", "build", "-c", "release", "--product", "traitbridge"], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix="tb-bench-http-")
    processes = []
    try:
        broker_port, http_port = free_port(), free_port()
        with open(os.path.join(work, "mosquitto.conf"), "w") as f:
            f.write(f"listener {broker_port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        processes.append(subprocess.Popen(["mosquitto", "-c", os.path.join(work, "mosquitto.conf")],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait(lambda: socket.socket().connect_ex(("127.0.0.1", broker_port)) == 0, 10, "mosquitto")
        demo = json.load(open(os.path.join(ROOT, "examples/demo-zigbee2mqtt-devices.json")))
        light = next(d for d in demo if d.get("friendly_name") == "Hall light")
        devices = []
        for i in range(args.devices):
            d = json.loads(json.dumps(light))
            d["friendly_name"] = f"Light {i:04d}"
            d["ieee_address"] = "0x00158d%010x" % (0x100000 + i)
            devices.append(d)
        pub = ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker_port), "-r", "-q", "1"]
        subprocess.run(pub + ["-t", "zigbee2mqtt/bridge/state", "-m", '{"state":"online"}'], check=True)
        subprocess.run(pub + ["-t", "zigbee2mqtt/bridge/devices", "-s"], input=json.dumps(devices).encode(), check=True)
        lines = "".join(f'{{"state":"ON","brightness":{i % 254}}}\n' for i in range(args.devices))
        for i in range(args.devices):  # one retained state per light
            subprocess.run(pub + ["-t", f"zigbee2mqtt/Light {i:04d}", "-m", lines.splitlines()[i]], check=True)
        with open(os.path.join(work, "tokens"), "w") as f:
            f.write(TOKEN + " bench\n")
        config = {"broker": f"mqtt://127.0.0.1:{broker_port}", "dataDir": os.path.join(work, "data"),
                  "mappings": os.path.join(ROOT, "mappings"), "logLevel": "warning",
                  "http": {"listen": f"127.0.0.1:{http_port}", "bearerTokensFile": os.path.join(work, "tokens")}}
        with open(os.path.join(work, "config.json"), "w") as f:
            json.dump(config, f)
        processes.append(subprocess.Popen([binary, "serve", "--config", os.path.join(work, "config.json")],
                                          stderr=open(os.path.join(work, "serve.log"), "w")))
        url = f"http://127.0.0.1:{http_port}/smarthome"
        sync = '{"requestId":"s","inputs":[{"intent":"action.devices.SYNC"}]}'

        def synced():
            try:
                return len(post(url, sync)["payload"]["devices"]) >= args.devices
            except Exception:
                return False
        wait(synced, 60, f"SYNC to list {args.devices} lights")
        ids = [d["id"] for d in post(url, sync)["payload"]["devices"]]
        one = json.dumps({"requestId": "q", "inputs": [{"intent": "action.devices.QUERY",
                                                       "payload": {"devices": [{"id": ids[0]}]}}]})
        every = json.dumps({"requestId": "q", "inputs": [{"intent": "action.devices.QUERY",
                                                         "payload": {"devices": [{"id": i} for i in ids]}}]})
        results = {}
        for name, body in [("query-1", one), (f"query-{len(ids)}", every)]:
            runs = [wrk(url, body, args.seconds, args.connections, work) for _ in range(args.runs)]
            for rate, p99 in runs:
                print(f"{name}: {rate:.0f} requests/s, p99 {p99:.2f} ms")
            results[name] = {"rps_median": statistics.median(r for r, _ in runs),
                             "p99_ms_median": statistics.median(p for _, p in runs), "runs": runs}
        print(json.dumps({"devices": args.devices, "connections": args.connections, "seconds": args.seconds,
                          **results}))
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
