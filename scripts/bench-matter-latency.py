#!/usr/bin/env python3
"""The Matter bridge end to end: the latency from a change published on MQTT to a Matter controller's
subscription report. A private mosquitto on loopback holds N zigbee2mqtt lights (the demo home's Hall
light, cloned; retained `zigbee2mqtt/bridge/devices`, availability and state); `serve` (BIN) with a
`matterBridge` section listens on a network sandbox's host address (scripts/sandbox.sh) and announces
itself through Avahi inside the sandbox (scripts/homekit-responder.sh); the CHIP SDK's Python controller
(scripts/matter-subscriber.py, from the Matter Server's venv, inside the sandbox) commissions the bridge
(PASE over IP, attestation against the SDK's test PAA, CASE found by DNS-SD) and subscribes with a
minimum interval of 0 to OnOff (cluster 6, attribute 0) on every endpoint (--scope all: to everything).
Then CHANGES times: a light's state flipped on MQTT (--lights of them in turn, ON/OFF alternating), timed
from just before the publish to the controller's report callback for that endpoint and value (both
stamped with CLOCK_MONOTONIC, which the sandbox shares), each waited for before the next. The controller's
own share (the SDK decrypting and decoding the report, in Python) is in the figure; for comparison, the
same change's unified state as serve published it on MQTT is timed too (unified_state_median_ms).

  sudo python3 scripts/bench-matter-latency.py BIN [--devices 20] [--changes 500] [--lights 4] [--scope onoff]

Prints one line of JSON: n (reports received), sent, lost, median_ms, p99_ms, max_ms, min_ms,
unified_state_median_ms, unified_states (how many were seen), devices,
bridged (endpoints with a NodeLabel), commission_s (PASE to CommissioningComplete, the controller's wall
time), pase_s, subscribe_s (the subscription's priming report), serve_peak_rss_mb (serve's VmHWM).
Needs root (network namespaces), mosquitto, avahi-daemon, dbus-daemon and scripts/install-matter-server.sh.
Every wait has a deadline; everything started is stopped at the end. Run from the project's root.
"""
import argparse, json, os, queue, re, shutil, signal, statistics, subprocess, sys, tempfile, threading, time

import benchlib
from benchlib import mqttlite

ROOT = benchlib.ROOT
PYTHON = os.path.join(ROOT, ".build-matter", "venv", "bin", "python")
PASSCODE, DISCRIMINATOR = 34971225, 1234
EXAMPLES = os.path.join(ROOT, "examples", "demo-home-zigbee2mqtt-devices.json")
CREDENTIALS = os.path.join(ROOT, "Sources", "TraitBridgeMatterCommissioning", "TestAttestationCredentials.swift")


def write_paa(folder):
    """The SDK's test PAA (Chip-Test-PAA-FFF1), DER, from the hex TraitBridge's tests write it from."""
    text = open(CREDENTIALS).read()
    block = re.search(r'paaCertificate = bytes\(\s*hex: """(.*?)"""', text, re.S)
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, "Chip-Test-PAA-FFF1-Cert.der"), "wb").write(bytes.fromhex(re.sub(r"\s", "", block[1])))


def lights(n):
    """N lights (the demo home's Hall light, cloned), all OFF: the retained messages and the names."""
    devices = json.load(open(EXAMPLES))
    coordinator, light = devices[0], next(d for d in devices if d["friendly_name"] == "Hall light")
    names, listed, messages = [], [coordinator], []
    for i in range(n):
        name = f"Light {i + 1:04d}"
        listed.append(dict(json.loads(json.dumps(light)), friendly_name=name, ieee_address="0x00158d%010x" % (i + 1)))
        names.append(name)
        messages.append((f"zigbee2mqtt/{name}/availability", json.dumps({"state": "online"})))
        messages.append((f"zigbee2mqtt/{name}", state_payload(False)))
    head = [("zigbee2mqtt/bridge/state", json.dumps({"state": "online"})),
            ("zigbee2mqtt/bridge/devices", json.dumps(listed))]
    return head + messages, names


def state_payload(on):
    return json.dumps({"state": "ON" if on else "OFF", "brightness": 60, "color_temp": 370, "linkquality": 120})


class Subscriber:
    """scripts/matter-subscriber.py in the sandbox; its JSON lines on a queue (a reader thread)."""

    def __init__(self, inside, tmp, host, port, scope, timeout):
        command = inside + [PYTHON, os.path.join(ROOT, "scripts", "matter-subscriber.py"),
                            "--storage", os.path.join(tmp, "controller"), "--paa-dir", os.path.join(tmp, "paa"),
                            "--address", host, "--port", str(port), "--passcode", str(PASSCODE),
                            "--scope", scope, "--timeout", str(int(timeout))]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(os.path.join(tmp, "controller.log"), "w"), text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.proc.stdout:
            if line.startswith("{"):
                try:
                    self.lines.put(json.loads(line))
                except ValueError:
                    pass
        self.lines.put(None)  # the helper ended

    def next(self, timeout):
        """The next line, or None after `timeout` seconds or when the helper ended."""
        try:
            return self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def wait_for(self, key, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.next(deadline - time.monotonic())
            if value is None or "error" in value:
                raise RuntimeError(f"the controller, waiting for {key}: {value or 'ended or timed out'}")
            if key in value:
                return value
        raise RuntimeError(f"the controller: no {key} in {timeout} s")

    def stop(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(10)
        except (subprocess.TimeoutExpired, OSError):
            self.proc.kill()


def wait_log(path, pattern, timeout, proc):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        found = re.search(pattern, open(path).read()) if os.path.exists(path) else None
        if found:
            return found
        time.sleep(0.2)
    raise RuntimeError(f"serve's log: no {pattern!r} in {timeout} s (serve's exit status: {proc.poll()})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--devices", type=int, default=20, help="lights on the bridge (one bridge, up to 1000)")
    parser.add_argument("--changes", type=int, default=500)
    parser.add_argument("--lights", type=int, default=4, help="how many of the lights change, in turn")
    parser.add_argument("--scope", choices=["onoff", "all"], default="onoff",
                        help="subscribe to OnOff on every endpoint, or to everything")
    parser.add_argument("--wait", type=float, default=10.0, help="seconds a change's report is waited for")
    args = parser.parse_args()
    if not 1 <= args.devices <= 1000:
        parser.error("--devices: 1 to 1000 (one bridge)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped (timeout, kill): clean up all the same
    tmp = tempfile.mkdtemp(prefix="tb-bench-matter-latency-")
    procs, sandbox, subscriber = [], None, None
    log_path = os.path.join(tmp, "serve.log")
    try:
        port = benchlib.mosquitto(tmp, procs)
        messages, names = lights(args.devices)
        publisher = mqttlite.Client(port, "bench-matter-latency")
        for topic, payload in messages:
            publisher.publish(topic, payload, retain=True)
        watcher = mqttlite.Client(port, "bench-matter-latency-watch")
        watcher.subscribe("traitbridge/devices/+/state")
        name, host, _ = subprocess.run([os.path.join(ROOT, "scripts", "sandbox.sh"), "up", str(os.getpid())],
                                       check=True, capture_output=True, text=True, timeout=60).stdout.split()
        sandbox = name
        inside = ["ip", "netns", "exec", name]
        bus = subprocess.run([os.path.join(ROOT, "scripts", "homekit-responder.sh"), "up", name,
                              os.path.join(tmp, "mdns")], check=True, capture_output=True, text=True,
                             timeout=60).stdout.strip()
        write_paa(os.path.join(tmp, "paa"))
        config = os.path.join(tmp, "config.json")
        section = {"listen": host, "port": 0, "mdns": [f"tbsb{name.rsplit('-', 1)[1]}"], "passcode": PASSCODE,
                   "discriminator": DISCRIMINATOR, "name": "Latency bridge"}
        # One bridge for them all (149, Apple Home's, is the default; 1 000 at most).
        section["devicesPerBridge"] = max(149, args.devices)
        json.dump({"broker": f"mqtt://127.0.0.1:{port}", "logLevel": "info", "matterBridge": section},
                  open(config, "w"))
        serve = subprocess.Popen([args.binary, "serve", "--config", config, "--data-dir", os.path.join(tmp, "data")],
                                 stdout=open(log_path, "w"), stderr=subprocess.STDOUT, cwd=ROOT,
                                 env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus))
        procs.append(serve)
        listening = wait_log(log_path, r"Matter: device listening on " + re.escape(host) + r":(\d+)", 60, serve)
        # Every light on the broker as a unified device before the controller comes.
        seen, deadline = set(), time.monotonic() + 120
        while len(seen) < args.devices and time.monotonic() < deadline:
            seen.update(topic for topic, _ in watcher.messages(1.0))
        if len(seen) < args.devices:
            raise RuntimeError(f"serve published {len(seen)} of {args.devices} devices' states in 120 s")
        unified = queue.Queue()  # serve's unified states as they come: (monotonic, topic, payload)

        def watch():
            try:
                while True:
                    for topic, payload in watcher.messages(1.0):
                        unified.put((time.monotonic(), topic, payload))
            except (OSError, ValueError):  # closed at the end
                pass
        threading.Thread(target=watch, daemon=True).start()
        subscriber = Subscriber(inside, tmp, host, int(listening[1]), args.scope,
                                timeout=300 + args.changes * (args.wait + 1))
        commissioned = subscriber.wait_for("commissioned", 150)
        labels = subscriber.wait_for("labels", 60)["labels"]
        missing = [n for n in names if n not in labels]
        if missing:
            raise RuntimeError(f"{len(missing)} lights not on the bridge, e.g. {missing[:3]}; {list(labels)[:5]}")
        subscribed = subscriber.wait_for("subscribed", 60)
        changing = [(labels[n], n) for n in names[:max(1, min(args.lights, args.devices))]]
        topics = {n: next(t for t in seen if "0x00158d%010x" % (names.index(n) + 1) in t) for _, n in changing}
        states = {endpoint: False for endpoint, _ in changing}
        latencies, lost, on_mqtt = [], 0, []
        for index in range(args.changes):
            endpoint, light = changing[index % len(changing)]
            states[endpoint] = on = not states[endpoint]
            while subscriber.next(0.05) is not None:  # a short gap, and nothing left from the change before
                pass
            while not unified.empty():
                unified.get_nowait()
            sent = time.monotonic()
            publisher.publish(f"zigbee2mqtt/{light}", state_payload(on))
            deadline = sent + args.wait
            while True:
                report = subscriber.next(deadline - time.monotonic())
                if report is None:
                    if subscriber.proc.poll() is not None:
                        raise RuntimeError("the controller ended")
                    lost += 1
                    if lost >= 5 and not latencies:
                        raise RuntimeError("no report for the first 5 changes")
                    break
                if "error" in report:
                    raise RuntimeError(f"the controller: {report['error']}")
                if (report.get("endpoint"), report.get("cluster"), report.get("attribute")) == (endpoint, 6, 0) \
                        and report["value"] is on and report["at"] > sent:
                    latencies.append((report["at"] - sent) * 1000)
                    break
            # The same change as serve published it on MQTT (its unified state), for comparison.
            expected = b'"onOff":' + (b"true" if on else b"false")
            while time.monotonic() < sent + 2:
                try:
                    at, topic, payload = unified.get(timeout=max(0.0, sent + 2 - time.monotonic()))
                except queue.Empty:
                    break
                if topic == topics[light] and expected in payload.replace(b" ", b""):
                    on_mqtt.append((at - sent) * 1000)
                    break
        if not latencies:
            raise RuntimeError(f"no report for any of {args.changes} changes")
        latencies.sort()
        # serve's peak resident memory over the whole run (the primed subscription included).
        peak = re.search(r"VmHWM:\s+(\d+) kB", open(f"/proc/{serve.pid}/status").read())
        print(json.dumps({
            "n": len(latencies), "sent": args.changes, "lost": lost,
            "median_ms": round(statistics.median(latencies), 2),
            "p99_ms": round(latencies[max(0, -(-len(latencies) * 99 // 100) - 1)], 2),
            "max_ms": round(latencies[-1], 2), "min_ms": round(latencies[0], 2),
            "unified_state_median_ms": round(statistics.median(on_mqtt), 2) if on_mqtt else None,
            "unified_states": len(on_mqtt),
            "devices": args.devices, "bridged": len(labels), "lights_changed": len(changing), "scope": args.scope,
            "commission_s": commissioned["commission_s"], "pase_s": commissioned["pase_s"],
            "subscribe_s": subscribed["seconds"], "serve_peak_rss_mb": round(int(peak[1]) / 1024, 1) if peak else None,
        }), flush=True)
    except BaseException:
        for path, what in ((log_path, "serve's log"), (os.path.join(tmp, "controller.log"), "the controller's")):
            if os.path.exists(path):
                sys.stderr.write(f"{what}, its end:\n" + open(path, errors="replace").read()[-3000:] + "\n")
        raise
    finally:
        if subscriber is not None:
            subscriber.stop()
        benchlib.stop(procs)
        if sandbox:
            subprocess.run([os.path.join(ROOT, "scripts", "sandbox.sh"), "down", sandbox], check=False, timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)


main()
