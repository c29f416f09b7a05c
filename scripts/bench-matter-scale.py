#!/usr/bin/env python3
"""Scale of the Matter source, by the method of ../shared/bench/scale: N Matter nodes (the corpus's
eight node dumps, cycled) imported into a real Matter Server (python-matter-server from
.build-matter/venv) inside a network sandbox (scripts/sandbox.sh: its mDNS stays off the machine's
network; needs root), a private mosquitto on loopback, then `traitbridge serve --matter-server` from
cold; the time until every node's unified state is on the broker, and serve's peak RSS.

  .build-matter/venv/bin/python scripts/bench-matter-scale.py BIN N

Prints one line of JSON: import_s (loading the nodes into the server, not TraitBridge's),
live_s, rss_mb, restart_s (the registry on disk), rss_restart_mb. Run from the project's root.
Figures are noisy: take the median of 3. SERVE_CONFIG='{"history": {"enabled": false}}' gives serve
a config file with that JSON (here: history off).
"""
import argparse, asyncio, glob, json, os, shutil, signal, socket, subprocess, sys, tempfile, time

import aiohttp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
sys.path.insert(0, os.path.join(SHARED, "bench", "scale"))
import mqttlite  # noqa: E402  (../shared/bench/scale's small MQTT client)
import benchlib  # noqa: E402  (stopping what it started, as the other bench scripts do)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, seconds, host="127.0.0.1"):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            socket.create_connection((host, port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


async def import_nodes(url, nodes):
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url, max_msg_size=0) as ws:
            await ws.receive_json()  # server info
            for index, node in enumerate(nodes):
                dump = json.dumps({"data": {"node": node}})
                await ws.send_json({"message_id": str(index), "command": "import_test_node", "args": {"dump": dump}})
                while True:
                    answer = json.loads((await ws.receive()).data)
                    if answer.get("message_id") == str(index):
                        if "error_code" in answer:
                            raise RuntimeError(f"import {index}: {answer}")
                        break


def hwm_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return None


def measure(binary, port, data, matter_url, log, expected, timeout):
    watcher = mqttlite.Client(port, f"matter-scale-{time.time_ns()}")
    watcher.subscribe("traitbridge/devices/+/state")
    list(watcher.messages(1.0))  # retained states of an earlier start
    config = []
    if os.environ.get("SERVE_CONFIG"):
        path = os.path.join(os.path.dirname(data), "serve-config.json")
        open(path, "w").write(os.environ["SERVE_CONFIG"])
        config = ["--config", path]
    started = time.time()
    serve = subprocess.Popen(
        [binary, "serve", *config, "--broker", f"mqtt://127.0.0.1:{port}", "--data-dir", data,
         "--matter-server", matter_url, "--log-level", "warning"], stdout=log, stderr=subprocess.STDOUT)
    seen = set()
    for topic, payload in watcher.messages(timeout):
        if payload:
            seen.add(topic)
        if len(seen) >= expected or time.time() - started > timeout:
            break
    elapsed = time.time() - started
    watcher.close()
    return serve, elapsed, len(seen)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("n", type=int)
    parser.add_argument("--timeout", type=float, default=180)
    options = parser.parse_args()
    files = sorted(glob.glob(os.path.join(SHARED, "corpus", "matter", "nodes", "*.json")))
    if not files:
        sys.exit("../shared/corpus/matter/nodes is not there")
    templates = [json.load(open(f)) for f in files]
    tmp = tempfile.mkdtemp(prefix="tb-matter-scale-")
    procs = []
    result = {"n": options.n, "source": "matter"}
    sandbox = None
    try:
        port = free_port()
        conf = os.path.join(tmp, "mosq.conf")
        open(conf, "w").write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        procs.append(subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        paa = os.path.join(tmp, "paa")
        os.makedirs(paa)
        open(os.path.join(paa, ".version"), "w").write("1")  # no network fetch
        matter_port = 5580
        made = subprocess.run([os.path.join(ROOT, "scripts", "sandbox.sh"), "up", str(os.getpid())],
                              capture_output=True, text=True, timeout=60)
        if made.returncode != 0:
            sys.exit("no network sandbox for the Matter Server: " + made.stderr.strip())
        sandbox, _, matter_host = made.stdout.split()
        server_log = open(os.path.join(tmp, "server.log"), "w")
        procs.append(subprocess.Popen(
            ["ip", "netns", "exec", sandbox, os.path.join(ROOT, ".build-matter", "venv", "bin", "matter-server"),
             "--storage-path", os.path.join(tmp, "storage"), "--port", str(matter_port), "--listen-address",
             matter_host, "--paa-root-cert-dir", paa, "--log-level", "error"],
            stdout=server_log, stderr=subprocess.STDOUT))
        if not wait_port(port, 10) or not wait_port(matter_port, 60, matter_host):
            sys.exit("mosquitto or the Matter Server did not start")
        url = f"ws://{matter_host}:{matter_port}/ws"
        started = time.time()
        asyncio.run(import_nodes(url, [templates[i % len(templates)] for i in range(options.n)]))
        result["import_s"] = round(time.time() - started, 2)
        log = open(os.path.join(tmp, "serve.log"), "w")
        data = os.path.join(tmp, "data")
        serve, elapsed, seen = measure(options.bin, port, data, url, log, options.n, options.timeout)
        procs.append(serve)
        result.update(live_s=round(elapsed, 2), live_seen=seen)
        time.sleep(3)
        result["rss_mb"] = round(hwm_mb(serve.pid), 1)
        serve.send_signal(signal.SIGTERM)
        serve.wait(30)
        clear = mqttlite.Client(port, "matter-scale-clear")
        clear.subscribe("traitbridge/devices/+/state")
        for topic in [t for t, p in clear.messages(2.0) if p]:
            clear.publish(topic, b"", retain=True)
        clear.close()
        time.sleep(1)
        again, elapsed, seen = measure(options.bin, port, data, url, log, options.n, options.timeout)
        procs.append(again)
        result.update(restart_s=round(elapsed, 2), restart_seen=seen)
        time.sleep(2)
        result["rss_restart_mb"] = round(hwm_mb(again.pid), 1)
        again.send_signal(signal.SIGTERM)
        again.wait(30)
    finally:
        benchlib.stop(procs)
        if sandbox:
            subprocess.run([os.path.join(ROOT, "scripts", "sandbox.sh"), "down", sandbox], timeout=60)
        if os.environ.get("KEEP"):
            print("kept", tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
