#!/usr/bin/env python3
"""The web UI and the change stream's WebSocket under load, by the method of ../shared/bench/scale:
N zigbee2mqtt devices (its generator) retained on a private mosquitto, `serve` with an `http`
section (a bearer token, and an owner's password for the UI), then one of:

  dom      a real headless Chromium (scripts/install-browser.sh) signed in on /ui/?room=… showing
           the devices; CHANGES times one device's availability flips on the broker, one at a time;
           the time from the publish to the page's card showing it (a MutationObserver's clock):
           dom_p50_ms, dom_p99_ms
  sockets  CLIENTS WebSocket clients on /api/v1/changes/socket (shape stream, every device); CHANGES
           devices' availability flips; every client must get every change: delivered, ws_p50_ms,
           ws_p99_ms (publish to frame, over all clients), serve's RSS (peak) and CPU seconds used
           while the changes went out

  python3 scripts/bench-ui.py BIN dom N [--changes 200]
  python3 scripts/bench-ui.py BIN sockets N [--clients 50] [--changes 1000]

Prints one line of JSON. Loopback only; every wait is bounded. Take the median of three runs.
"""
import argparse, base64, json, os, shutil, socket, statistics, struct, tempfile, threading, time

import benchlib
from benchlib import scale

TOKEN = "bench-token-0123456789abcdef"
PASSWORD = "bench password"


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def websocket(port, path, timeout=60):
    """A minimal RFC 6455 client: the upgrade, then `frames()` yields each text frame's bytes."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    key = base64.b64encode(os.urandom(16)).decode()
    connection.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                        f"Authorization: Bearer {TOKEN}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = connection.recv(4096)
        if not chunk:
            raise RuntimeError("closed during the upgrade")
        head += chunk
    status, rest = head.split(b"\r\n", 1)[0], head.split(b"\r\n\r\n", 1)[1]
    if b" 101 " not in status:
        raise RuntimeError(f"upgrade refused: {status!r}")
    return connection, rest


def frames(connection, buffer):
    def need(count):
        nonlocal buffer
        while len(buffer) < count:
            chunk = connection.recv(1 << 20)
            if not chunk:
                raise EOFError
            buffer += chunk
    while True:
        need(2)
        opcode, length = buffer[0] & 0x0F, buffer[1] & 0x7F
        offset = 2
        if length == 126:
            need(4)
            length, offset = struct.unpack(">H", buffer[2:4])[0], 4
        elif length == 127:
            need(10)
            length, offset = struct.unpack(">Q", buffer[2:10])[0], 10
        need(offset + length)
        payload, buffer = buffer[offset:offset + length], buffer[offset + length:]
        if opcode == 8:
            return
        if opcode == 1:
            yield payload


def start(tmp, binary, n, procs):
    port = benchlib.mosquitto(tmp, procs)
    publisher, messages = benchlib.retained_z2m(port, n, "bench-ui-publisher")
    http_port = scale.free_port()
    open(os.path.join(tmp, "tokens"), "w").write(TOKEN + " bench\n")
    open(os.path.join(tmp, "password"), "w").write(PASSWORD + "\n")
    open(os.path.join(tmp, "secret"), "w").write("bench-client-secret\n")
    config = benchlib.write_config(tmp, port, {
        "listen": f"127.0.0.1:{http_port}", "bearerTokensFile": os.path.join(tmp, "tokens"),
        "oauth": {"clientId": "bench", "clientSecretFile": os.path.join(tmp, "secret"),
                  "redirectUris": ["http://127.0.0.1:9/r"], "user": "owner",
                  "passwordFile": os.path.join(tmp, "password")}})
    serve, seen = benchlib.serve_until_published(binary, config, tmp, port, n, procs)
    names = [topic[len("zigbee2mqtt/"):-len("/availability")] for topic, _ in messages
             if topic.endswith("/availability")]
    return serve, publisher, http_port, names, seen


def dom(options, serve, publisher, http_port, names):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    chrome = webdriver.ChromeOptions()
    chrome.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]:
        chrome.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=chrome)
    try:
        base = f"http://127.0.0.1:{http_port}"
        driver.get(base + "/ui/login")
        driver.find_element(By.ID, "username").send_keys("owner")
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "sign-in").click()
        WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "article.card"))
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.body.dataset.live") == "yes")
        # The observer notes when a card is redrawn saying the state the change gave it.
        driver.execute_script("""
            window.seen = {};
            new MutationObserver(records => {
              for (const record of records) for (const node of record.addedNodes) {
                if (node.nodeType !== 1 || !node.matches('article.card')) continue;
                const state = node.querySelector('.badge').textContent;
                window.seen[node.querySelector('h3').textContent + '|' + state] = Date.now();
              }
            }).observe(document.querySelector('main'), {childList: true, subtree: true});""")
        shown = driver.execute_script("return [...document.querySelectorAll('article.card h3')].map(h => h.textContent)")
        flips = [name for name in names if name in shown][:20]
        latencies = []
        for index in range(options.changes):
            name = flips[index % len(flips)]
            state = "offline" if (index // len(flips)) % 2 == 0 else "online"
            sent = time.time() * 1000
            publisher.publish(f"zigbee2mqtt/{name}/availability", json.dumps({"state": state}).encode(), retain=True)
            key = f"{name}|{state}"
            deadline = time.time() + 10
            while time.time() < deadline:
                shown_at = driver.execute_script("return window.seen[arguments[0]]", key)
                if shown_at:
                    latencies.append(shown_at - sent)
                    driver.execute_script("delete window.seen[arguments[0]]", key)
                    break
                time.sleep(0.002)
        return {"cards": len(shown), "changes": len(latencies),
                "dom_p50_ms": round(statistics.median(latencies), 1),
                "dom_p99_ms": round(percentile(latencies, 0.99), 1)}
    finally:
        driver.quit()


def sockets(options, serve, publisher, http_port, names):
    arrivals = [dict() for _ in range(options.clients)]
    ready = threading.Barrier(options.clients + 1, timeout=120)
    errors = []

    def client(index):
        try:
            connection, rest = websocket(http_port, "/api/v1/changes/socket?shape=stream", timeout=120)
            first = True
            for payload in frames(connection, rest):
                if first:
                    first = False
                    ready.wait()
                    continue
                now = time.perf_counter()
                frame = json.loads(payload)
                name = (frame["data"].get("state") or {}).get("name")
                arrivals[index].setdefault(name, now)
                if len(arrivals[index]) >= options.changes:
                    break
            connection.close()
        except Exception as error:  # reported in the result, never ignored
            errors.append(f"client {index}: {type(error).__name__}: {error}")

    threads = [threading.Thread(target=client, args=(index,), daemon=True) for index in range(options.clients)]
    for thread in threads:
        thread.start()
    ready.wait()
    time.sleep(0.5)
    cpu_before = cpu_seconds(serve.pid)
    started = time.perf_counter()
    sent = {}
    for name in names[:options.changes]:
        sent[name] = time.perf_counter()
        publisher.publish(f"zigbee2mqtt/{name}/availability", b'{"state":"offline"}', retain=True)
        time.sleep(0.001)
    for thread in threads:
        thread.join(120)
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(serve.pid) - cpu_before
    latencies = [(got[name] - sent[name]) * 1000 for got in arrivals for name in got if name in sent]
    return {"clients": options.clients, "changes": options.changes,
            "delivered": sum(len(got) for got in arrivals), "expected": options.clients * options.changes,
            "ws_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
            "ws_p99_ms": round(percentile(latencies, 0.99), 1) if latencies else None,
            "seconds": round(elapsed, 2), "cpu_s": round(cpu, 2), "errors": errors[:5]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("mode", choices=["dom", "sockets"])
    parser.add_argument("n", type=int)
    parser.add_argument("--changes", type=int)
    parser.add_argument("--clients", type=int, default=50)
    options = parser.parse_args()
    options.changes = options.changes or (200 if options.mode == "dom" else 1000)
    tmp = tempfile.mkdtemp(prefix="tb-bench-ui-")
    procs = []
    result = {"mode": options.mode, "n": options.n}
    try:
        serve, publisher, http_port, names, seen = start(tmp, options.bin, options.n, procs)
        result["devices_seen"] = seen
        run = dom if options.mode == "dom" else sockets
        result.update(run(options, serve, publisher, http_port, names))
        result["rss_mb"] = round(scale.hwm_mb(serve.pid), 1)
    finally:
        benchlib.stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
