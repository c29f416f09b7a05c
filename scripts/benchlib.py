"""What the benchmark scripts share: a private mosquitto on a free loopback port, N zigbee2mqtt
devices (../shared/bench/scale's generator) retained on it, `serve` until it has published them,
and stopping what they started. Loopback only; every wait is bounded."""
import json, os, signal, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCALE = os.path.join(os.path.dirname(ROOT), "shared", "bench", "scale")
sys.path.insert(0, SCALE)
import mqttlite  # noqa: E402
import scale  # noqa: E402


def mosquitto(tmp, procs):
    """A private broker; its port."""
    port = scale.free_port()
    conf = os.path.join(tmp, "mosq.conf")
    open(conf, "w").write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    procs.append(subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    time.sleep(0.5)
    return port


def retained_z2m(port, n, client_id):
    """N zigbee2mqtt devices retained on the broker: the publisher and the messages."""
    publisher = mqttlite.Client(port, client_id)
    messages = scale.z2m_messages(n)
    for topic, payload in messages:
        publisher.publish(topic, payload, retain=True)
    return publisher, messages


def serve_until_published(binary, config, tmp, port, n, procs, timeout=180):
    """`serve --config config`, waited for until it published N devices' states: the process and
    how many it published."""
    watcher = mqttlite.Client(port, "bench-watch")
    watcher.subscribe("traitbridge/devices/+/state")
    log = open(os.path.join(tmp, "serve.log"), "w")
    serve = subprocess.Popen([binary, "serve", "--config", config], stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    procs.append(serve)
    seen = set()
    deadline = time.time() + timeout
    while len(seen) < n and time.time() < deadline:
        for topic, _ in watcher.messages(1.0):
            seen.add(topic)
    return serve, len(seen)


def write_config(tmp, port, http):
    """A config file for `serve` on the broker at `port` with this `http` section; its path."""
    config = os.path.join(tmp, "config.json")
    json.dump({"broker": f"mqtt://127.0.0.1:{port}", "dataDir": os.path.join(tmp, "data"), "logLevel": "warning",
               "http": http}, open(config, "w"))
    return config


def stop(procs):
    """SIGTERM each process still running, then SIGKILL after 10 s."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
