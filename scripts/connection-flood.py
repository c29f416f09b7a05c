#!/usr/bin/env python3
"""Opens COUNT TCP connections to HOST:PORT at once (non-blocking: the kernel finishes each
handshake), sends nothing, and holds them for at most HOLD seconds or until SIGTERM; then prints
how many the peer had accepted and closes them all. A process of its own, so the test that floods a
server keeps few descriptors itself (Foundation's Process.run overreads /proc/self/fd in a process
with thousands open, which AddressSanitizer reports).

  connection-flood.py HOST PORT COUNT HOLD

Prints {"opened": n} once every socket is open, then {"established": k} at the end.
"""
import json, resource, select, signal, socket, sys, time


def main():
    host, port, count, hold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count + 64 if hard == resource.RLIM_INFINITY else min(hard, count + 64)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    sockets = []
    try:
        for _ in range(count):
            try:
                client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            except OSError:
                break
            client.setblocking(False)
            client.connect_ex((host, port))
            sockets.append(client)
        print(json.dumps({"opened": len(sockets)}), flush=True)
        deadline = time.monotonic() + hold
        while not stop and time.monotonic() < deadline:
            time.sleep(0.05)
        poller = select.poll()
        for client in sockets:
            poller.register(client, select.POLLOUT)
        ready = {fd for fd, events in poller.poll(0) if events & select.POLLOUT and not events & select.POLLERR}
        print(json.dumps({"established": len(ready)}), flush=True)
    finally:
        for client in sockets:
            client.close()


if __name__ == "__main__":
    main()
