#!/usr/bin/env python3
"""The HomeKit bridge against a real controller, on real parts: a private mosquitto with N retained
zigbee2mqtt devices (../shared/bench/scale), `serve` (BIN) with a homekit section announced by Avahi
in a network sandbox (scripts/sandbox.sh, scripts/homekit-responder.sh: root), and aiohomekit
(scripts/homekit-controller.py) in the same sandbox. Measures:

  pair_setup_s     pair-setup (M1…M6, with the TCP connection) once the bridge was found by mDNS
  pair_verify_ms   a new connection's pair-verify and one request (/pairings), median of VERIFIES
  accessories_ms   GET /accessories of a full bridge (149 accessories: HAP's limit), median of 5
  event_ms         a change published on MQTT (a light's state) to the controller's EVENT, median and
                   p99 of CHANGES (each waited for before the next)
  rss_kb           serve's VmRSS before pairing, with the controller paired and subscribed, and with
                   SESSIONS more verified sessions held open and subscribed (each what one more
                   controller costs): per_session = the difference / SESSIONS

  sudo python3 scripts/bench-homekit.py BIN [--devices 160] [--changes 500] [--verifies 20] [--sessions 16] [--bridge 1]

Prints one line of JSON. Needs scripts/install-homekit-peers.sh. Every wait is bounded.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

import benchlib
from benchlib import mqttlite

ROOT = benchlib.ROOT
PYTHON = os.path.join(ROOT, ".build-homekit", "venv", "bin", "python")
CODE = "031-45-154"


def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Controller:
    def __init__(self, inside):
        self.proc = subprocess.Popen(inside + [PYTHON, os.path.join(ROOT, "scripts", "homekit-controller.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1)
        self.events = []
        assert "ready" in self.answer()

    def answer(self):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the controller ended")
            value = json.loads(line)
            if "event" in value:
                self.events.append(value)
                continue
            return value

    def send(self, command):
        self.proc.stdin.write(json.dumps(command) + "\n")
        return self.answer()

    def event(self, timeout):
        """The next event line (bounded)."""
        import select
        deadline = time.monotonic() + timeout
        while not self.events and time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                value = json.loads(self.proc.stdout.readline())
                if "event" in value:
                    self.events.append(value)
        return self.events.pop(0) if self.events else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--devices", type=int, default=160)
    parser.add_argument("--changes", type=int, default=500)
    parser.add_argument("--verifies", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--bridge", type=int, default=1, help="which bridge to pair (2…: the ones past 149)")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="tb-bench-homekit-")
    procs, sandbox, controller = [], None, None
    try:
        port = benchlib.mosquitto(tmp, procs)
        publisher, _ = benchlib.retained_z2m(port, args.devices, "bench-homekit")
        name, host, peer = subprocess.run([os.path.join(ROOT, "scripts", "sandbox.sh"), "up", str(os.getpid())],
                                          check=True, capture_output=True, text=True).stdout.split()
        sandbox = name
        inside = ["ip", "netns", "exec", name]
        bus = subprocess.run([os.path.join(ROOT, "scripts", "homekit-responder.sh"), "up", name,
                              os.path.join(tmp, "mdns")], check=True, capture_output=True, text=True).stdout.strip()
        config = os.path.join(tmp, "config.json")
        index = name.rsplit("-", 1)[1]
        json.dump({"broker": f"mqtt://127.0.0.1:{port}", "dataDir": os.path.join(tmp, "data"), "logLevel": "info",
                   "homekit": {"listen": host, "port": 0, "mdns": [f"tbsb{index}"], "setupCode": CODE}},
                  open(config, "w"))
        log_path = os.path.join(tmp, "serve.log")
        serve = subprocess.Popen([args.binary, "serve", "--config", config], stdout=open(log_path, "w"),
                                 stderr=subprocess.STDOUT, cwd=ROOT, env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus))
        procs.append(serve)
        pairing_id = None
        bridge_name = "TraitBridge" if args.bridge == 1 else f"TraitBridge {args.bridge}"
        deadline = time.time() + 60
        while time.time() < deadline and pairing_id is None:
            for line in open(log_path):
                if f'HomeKit: bridge "{bridge_name}" (id ' in line:
                    pairing_id = line.split("(id ")[1][:17]
            time.sleep(0.2)
        time.sleep(5)  # the devices arrive and the configuration number settles
        rss_before = rss(serve.pid)
        controller = Controller(inside)
        found = controller.send({"op": "find", "id": pairing_id})
        assert found.get("ok"), found
        paired = controller.send({"op": "pair", "id": pairing_id, "code": CODE})
        assert paired.get("ok"), paired
        verifies = []
        for _ in range(args.verifies):
            answer = controller.send({"op": "verify"})
            assert answer.get("ok"), answer
            verifies.append(answer["seconds"] * 1000)
        listing = []
        accessories = []
        for _ in range(5):
            started = time.monotonic()
            accessories = controller.send({"op": "accessories"})["accessories"]
            listing.append((time.monotonic() - started) * 1000)
        light = None
        for accessory in accessories:
            items = [c for s in accessory["services"] for c in s["characteristics"]]
            names = [c.get("value") for c in items if c["type"].startswith("00000023")]
            on = [c for c in items if c["type"].startswith("00000025-")]
            if len(on) == 1 and names:  # one On: the device's own `state` switches it
                light = (accessory["aid"], on[0]["iid"], names[0])
                break
        assert light, "a device with On"
        assert controller.send({"op": "subscribe", "ids": [[light[0], light[1]]]}).get("ok")
        latencies = []
        state = False
        for _ in range(args.changes):
            state = not state
            while controller.event(0.05) is not None:  # nothing left over from the change before
                pass
            sent = time.monotonic()
            publisher.publish(f"zigbee2mqtt/{light[2]}", json.dumps({"state": "ON" if state else "OFF"}))
            while True:
                event = controller.event(5)
                if event is None or (event["at"] > sent and any(e[2] == state for e in event["event"])):
                    break
            if event is not None:
                latencies.append((event["at"] - sent) * 1000)
        latencies.sort()
        rss_paired = rss(serve.pid)
        # More controllers: SESSIONS more verified sessions, each subscribed to the light, held open.
        held = controller.send({"op": "hold", "count": args.sessions, "ids": [[light[0], light[1]]]})
        assert held.get("ok"), held
        time.sleep(1)
        rss_sessions = rss(serve.pid)
        print(json.dumps({
            "devices": args.devices, "accessories": len(accessories),
            "pair_setup_s": round(paired["seconds"], 3),
            "pair_verify_ms": round(statistics.median(verifies), 1),
            "accessories_ms": round(statistics.median(listing), 1),
            "event_ms": {"median": round(statistics.median(latencies), 2),
                         "p99": round(latencies[max(0, int(len(latencies) * 0.99) - 1)], 2),
                         "received": len(latencies), "sent": args.changes},
            "rss_kb": {"before": rss_before, "paired": rss_paired, "sessions": args.sessions,
                       "with_sessions": rss_sessions,
                       "per_session": round((rss_sessions - rss_paired) / max(1, args.sessions), 1)},
        }))
    except BaseException:
        # What serve said, for the why (the folder goes with the run).
        log = os.path.join(tmp, "serve.log")
        if os.path.exists(log):
            sys.stderr.write("serve's log, its end:\n" + open(log).read()[-4000:])
        raise
    finally:
        if controller is not None:
            controller.proc.stdin.close()
            controller.proc.wait(10)
        benchlib.stop(procs)
        if sandbox:
            subprocess.run([os.path.join(ROOT, "scripts", "sandbox.sh"), "down", sandbox], check=False)
        shutil.rmtree(tmp, ignore_errors=True)


main()
