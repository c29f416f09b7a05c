#!/usr/bin/env python3
"""A camera's live view through the bridge, on real parts: the go2rtc-compatible aiortc camera
(scripts/camera-peer.py) and aiortc viewers (scripts/camera-viewer.py) inside a network sandbox
(scripts/sandbox.sh: root), a private mosquitto and `serve` (BIN) on loopback with a frigate section
whose go2rtc is the camera. Measures:

  first_frame_ms   from starting `traitbridge camera live` (the viewer's offer ready) to the viewer's
                   first decoded frame: CLI start, MQTT, the bridge, the camera's answer, ICE, DTLS,
                   the first frame. Median and p90 of RUNS sessions, each stopped after.
  google_first_frame_ms  the same through Google's CameraStream path: POST /smarthome EXECUTE
                   GetCameraStream (a static token), then the viewer's offer POSTed to the signalling
                   URL with the stream token it gave, the answer handed to the viewer, to its first frame
                   (the HTTP requests made from this process; no CLI start). Median and p90 of RUNS.
  sessions         SESSIONS sessions started at once over MQTT (the same offer each time: the
                   camera answers each, no viewer connects): how many the bridge confirmed, that the
                   next one is refused (resourceExhausted at the bound, 100), serve's VmRSS before, with
                   them open, and after stopping them, and how long starting them all took.

  sudo python3 scripts/bench-liveview.py BIN [--runs 20] [--sessions 100]

Prints one line of JSON. Needs scripts/install-camera-peers.sh. Every wait is bounded.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time, urllib.request

import benchlib
from benchlib import mqttlite

ROOT = benchlib.ROOT
PYTHON = os.path.join(ROOT, ".build-camera", "venv", "bin", "python")


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=100)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    tmp = tempfile.mkdtemp(prefix="tb-bench-live-")
    procs = []
    name = None
    try:
        name, _, peer = subprocess.run([os.path.join(ROOT, "scripts", "sandbox.sh"), "up", str(os.getpid())],
                                       check=True, capture_output=True, text=True, timeout=60).stdout.split()
        inside = ["ip", "netns", "exec", name]
        camera_log = open(os.path.join(tmp, "camera.log"), "w")
        procs.append(subprocess.Popen(inside + [PYTHON, os.path.join(ROOT, "scripts", "camera-peer.py"), "--host",
                                                peer, "--port", "1984", "--max-sessions", "400"],
                                      stdout=camera_log, stderr=subprocess.STDOUT))
        deadline = time.time() + 30
        while "listening" not in open(camera_log.name).read() and time.time() < deadline:
            time.sleep(0.05)
        port = benchlib.mosquitto(tmp, procs)
        config = os.path.join(tmp, "config.json")
        http_port = benchlib.scale.free_port()
        token = "bench-token-0123456789abcdef0123"
        open(os.path.join(tmp, "tokens"), "w").write(f"{token} bench\n")
        json.dump({"broker": f"mqtt://127.0.0.1:{port}", "dataDir": os.path.join(tmp, "data"), "logLevel": "warning",
                   "frigate": {"go2rtc": f"http://{peer}:1984"},
                   "http": {"listen": f"127.0.0.1:{http_port}", "bearerTokensFile": os.path.join(tmp, "tokens")}},
                  open(config, "w"))
        serve = subprocess.Popen([binary, "serve", "--config", config], stdout=open(os.path.join(tmp, "serve.log"), "w"),
                                 stderr=subprocess.STDOUT, cwd=ROOT)
        procs.append(serve)
        frigate = mqttlite.Client(port, "bench-frigate")
        watch = mqttlite.Client(port, "bench-watch")
        watch.subscribe("traitbridge/devices/frigate-front_door/#")
        deadline = time.time() + 30
        ready = False
        while not ready and time.time() < deadline:
            frigate.publish("frigate/stats", json.dumps({"cameras": {"front_door": {"camera_fps": 5.0}}}))
            frigate.publish("frigate/front_door/recordings/state", "ON", retain=True)
            for topic, payload in watch.messages(0.5):
                if topic.endswith("/state") and b'"transportStatus":0' in payload:
                    ready = True
                    break
        assert ready, "the camera did not come up"

        # 1. Start to first frame, RUNS times.
        def viewer_with_offer(name):
            """A viewer in the sandbox, once its offer is written: the process and its two files."""
            offer, answer = os.path.join(tmp, f"{name}.offer"), os.path.join(tmp, f"{name}.answer")
            viewer = subprocess.Popen(inside + [PYTHON, os.path.join(ROOT, "scripts", "camera-viewer.py"), offer,
                                                answer, "--seconds", "2"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            deadline = time.time() + 20
            while not os.path.exists(offer) and time.time() < deadline:
                time.sleep(0.005)
            return viewer, offer, answer

        firsts, offer_text = [], None
        for run in range(args.runs):
            viewer, offer, answer = viewer_with_offer(str(run))
            offer_text = offer_text or open(offer).read()
            started = time.time()
            live = subprocess.run([binary, "camera", "live", "frigate-front_door", "--offer", offer, "--answer", answer,
                                   "--json", "--broker", f"mqtt://127.0.0.1:{port}"],
                                  capture_output=True, text=True, timeout=30)
            out, _ = viewer.communicate(timeout=40)
            result = json.loads(out.strip().splitlines()[-1])
            if live.returncode == 0 and result.get("firstFrameAt"):
                firsts.append((result["firstFrameAt"] - started) * 1000)
                session = json.loads(live.stdout.strip().splitlines()[-1])["mediaSessionId"]
                subprocess.run([binary, "camera", "stop", "frigate-front_door", session, "--broker",
                                f"mqtt://127.0.0.1:{port}"], capture_output=True, timeout=30)
        firsts.sort()

        # 1b. The same through Google's path: GetCameraStream, then the offer at the signalling URL.
        def post(url, body, bearer):
            request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
                "Content-Type": "application/json", "Authorization": f"Bearer {bearer}"})
            return json.loads(urllib.request.urlopen(request, timeout=15).read())
        get_stream = {"requestId": "b", "inputs": [{"intent": "action.devices.EXECUTE", "payload": {"commands": [{
            "devices": [{"id": "frigate-front_door"}], "execution": [{
                "command": "action.devices.commands.GetCameraStream",
                "params": {"StreamToChromecast": False, "SupportedStreamProtocols": ["webrtc"]}}]}]}}]}
        google = []
        for run in range(args.runs):
            viewer, offer, answer = viewer_with_offer(f"g{run}")
            started = time.time()
            states = post(f"http://127.0.0.1:{http_port}/smarthome", get_stream, token)["payload"]["commands"][0]
            stream = states.get("states", {})
            answered = post(stream["cameraStreamSignalingUrl"], {"action": "offer", "deviceId": "frigate-front_door",
                                                                 "sdp": open(offer).read()},
                            stream["cameraStreamAuthToken"])
            open(answer + ".part", "w").write(answered["sdp"])
            os.replace(answer + ".part", answer)
            out, _ = viewer.communicate(timeout=40)
            result = json.loads(out.strip().splitlines()[-1])
            if result.get("firstFrameAt"):
                google.append((result["firstFrameAt"] - started) * 1000)
            post(stream["cameraStreamSignalingUrl"], {"action": "end"}, stream["cameraStreamAuthToken"])
        google.sort()

        # 2. SESSIONS at once over MQTT, then one more, then all stopped.
        before = rss_mb(serve.pid)
        results = mqttlite.Client(port, "bench-results")
        results.subscribe("traitbridge/devices/frigate-front_door/set/result")
        time.sleep(0.3)
        commander = mqttlite.Client(port, "bench-commands")
        started = time.time()
        for number in range(args.sessions + 1):
            command = {"id": f"s{number}", "trait": "google.WebRtcLiveView", "command": "startLiveView",
                       "arguments": {"offerSdp": offer_text}}
            commander.publish("traitbridge/devices/frigate-front_door/set", json.dumps(command))
        outcomes = {}
        deadline = time.time() + 120
        while len(outcomes) < args.sessions + 1 and time.time() < deadline:
            for _, payload in results.messages(1.0):
                outcome = json.loads(payload)
                outcomes[outcome.get("id")] = outcome
        took = time.time() - started
        confirmed = [o for o in outcomes.values() if o.get("status") == "confirmed"]
        refused = [o.get("code") for o in outcomes.values() if o.get("status") == "error"]
        with_sessions = rss_mb(serve.pid)
        for outcome in confirmed:
            stop = {"id": "x", "trait": "google.WebRtcLiveView", "command": "stopLiveView",
                    "arguments": {"mediaSessionId": outcome["response"]["mediaSessionId"]}}
            commander.publish("traitbridge/devices/frigate-front_door/set", json.dumps(stop))
        time.sleep(3)
        after = rss_mb(serve.pid)
        print(json.dumps({
            "first_frame_ms_p50": round(statistics.median(firsts), 1) if firsts else None,
            "first_frame_ms_p90": round(firsts[int(len(firsts) * 0.9) - 1], 1) if firsts else None,
            "first_frame_runs": len(firsts),
            "google_first_frame_ms_p50": round(statistics.median(google), 1) if google else None,
            "google_first_frame_ms_p90": round(google[int(len(google) * 0.9) - 1], 1) if google else None,
            "google_first_frame_runs": len(google),
            "sessions_confirmed": len(confirmed), "sessions_refused": refused,
            "sessions_start_s": round(took, 2),
            "serve_rss_mb": {"before": round(before, 1), "open": round(with_sessions, 1), "stopped": round(after, 1)},
        }))
    finally:
        benchlib.stop(procs)
        if name:
            subprocess.run([os.path.join(ROOT, "scripts", "sandbox.sh"), "down", name], capture_output=True, timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
