#!/usr/bin/env python3
"""Holds change-stream clients on a bridge's HTTP API while it is stopped and started again (the
shutdown soak): SSE readers of /api/v1/changes and WebSocket readers of /api/v1/changes/socket,
each reconnecting a moment after its connection ends, until SIGTERM or SECONDS have passed. Then
prints one JSON line: connections opened and bytes read, per kind. Standard library only; loopback.

  soak-clients.py HOST PORT TOKEN SSE_COUNT WS_COUNT SECONDS
"""
import base64, json, os, signal, socket, sys, threading, time

stop = threading.Event()
lock = threading.Lock()
counts = {"sse": {"opened": 0, "bytes": 0}, "ws": {"opened": 0, "bytes": 0}}


def request(path, token, websocket):
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", f"Authorization: Bearer {token}"]
    if websocket:
        key = base64.b64encode(os.urandom(16)).decode()
        lines += ["Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
                  "Sec-WebSocket-Version: 13"]
    else:
        lines += ["Accept: text/event-stream"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def client(kind, host, port, token):
    path = "/api/v1/changes/socket" if kind == "ws" else "/api/v1/changes"
    while not stop.is_set():
        try:
            with socket.create_connection((host, port), timeout=2) as connection:
                connection.sendall(request(path, token, kind == "ws"))
                head = connection.recv(4096)
                expected = b" 101 " if kind == "ws" else b" 200 "
                if expected not in head.split(b"\r\n", 1)[0]:
                    raise OSError(f"answered {head[:40]!r}")
                with lock:
                    counts[kind]["opened"] += 1
                connection.settimeout(0.5)
                while not stop.is_set():
                    try:
                        data = connection.recv(65536)
                    except socket.timeout:
                        continue
                    if not data:
                        break
                    with lock:
                        counts[kind]["bytes"] += len(data)
        except OSError:
            pass
        stop.wait(0.2)


def main():
    host, port, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    sse, ws, seconds = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threads = [threading.Thread(target=client, args=("sse", host, port, token), daemon=True) for _ in range(sse)]
    threads += [threading.Thread(target=client, args=("ws", host, port, token), daemon=True) for _ in range(ws)]
    for thread in threads:
        thread.start()
    print(json.dumps({"clients": len(threads)}), flush=True)
    stop.wait(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=3)
    with lock:
        print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    main()
