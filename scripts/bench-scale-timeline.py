#!/usr/bin/env python3
"""Where a 10 000-device start spends its time and memory: a timeline beside ../shared/bench/scale.

  scripts/bench-scale-timeline.py BIN N [--runs 1]

Publishes the scale script's N zigbee2mqtt devices (retained) to a private mosquitto on a free
127.0.0.1 port, starts `BIN serve` cold, then again with the registry on disk (the unified states
cleared from the broker first), and for each start prints, in seconds from the process start:
  first / all   the first and the last device's unified state on the broker
  first_valued / valued
                the first and the last device's state carrying what its source said (restart only: the
                same values as the cold start's final state of that device, `since` and times left out)
  settled       when the last device's state last changed its values (cold too: when every value was in)
  all_cpu_s / valued_cpu_s / settled_cpu_s
                serve's CPU time (user + system, every thread) at those moments
  rss           serve's RSS sampled every 10 ms: its peak and when it was reached, and a few points
One JSON line per start. Loops and waits are bounded (--timeout). Only loopback is used.
TIMELINE_LOG_LEVEL=info runs serve at that level; TIMELINE_DEBUG=1 prints the end of serve's log (and
the first differences of two states that did not come back), TIMELINE_DEBUG=<text> its lines holding <text>.
TIMELINE_RESTART_PREFIX="perf record -g -o restart.data --" runs the restart under that command (its RSS is
then the wrapper's; TIMELINE_COLD_PREFIX the cold start). TIMELINE_HISTORY=<history.sqlite> puts that file in
the data directory before the restart (a week of history: TB_BENCH=history-seed of TraitBridgeBench);
TIMELINE_CONFIG=<file> gives serve that config (`{"history": {"enabled": false}}`: history off).
"""
import argparse, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, threading, time

SCALE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "bench", "scale")
if not os.path.isdir(SCALE):
    sys.exit(f"bench-scale-timeline: {SCALE} is not there (it needs ../shared beside the repository)")
sys.path.insert(0, SCALE)
import mqttlite  # noqa: E402
import scale  # noqa: E402

TIMES = re.compile(rb'"(since|lastUpdate|lastChanged|lastSeen)":("[^"]*"|[0-9.]+)')


def values_of(payload):
    """The state with its timestamps blanked: equal when the device says the same."""
    return TIMES.sub(b'"\\1":0', payload)


def sample_rss(pid, samples, stop):
    t0 = time.time()
    while not stop.is_set() and time.time() - t0 < 600:
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS"):
                    samples.append((time.time(), int(line.split()[1]) / 1024, cpu_seconds(pid)))
        except OSError:
            return
        time.sleep(0.01)


def cpu_seconds(pid):
    """serve's user + system CPU time so far (all threads): steadier than the wall clock on a busy machine."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)
    except (OSError, IndexError, ValueError):
        return None


def measure(bin_, port, data, log, expected, finals, timeout, prefix=()):
    watch = mqttlite.Client(port, f"timeline-{time.time_ns()}")
    watch.subscribe("traitbridge/devices/+/state")
    list(watch.messages(1.0))  # what an earlier run left (cleared before a restart)
    t0 = time.time()
    config = ["--config", os.environ["TIMELINE_CONFIG"]] if os.environ.get("TIMELINE_CONFIG") else []
    serve = subprocess.Popen([*prefix, bin_, "serve", *config, "--broker", f"mqtt://127.0.0.1:{port}",
                              "--data-dir", data, "--log-level", os.environ.get("TIMELINE_LOG_LEVEL", "warning")],
                             stdout=log, stderr=subprocess.STDOUT)
    samples, stop = [], threading.Event()
    sampler = threading.Thread(target=sample_rss, args=(serve.pid, samples, stop))
    sampler.start()
    seen, valued, last, count, settled_at = set(), set(), {}, 0, {}
    first = every = done = first_valued = every_cpu = done_cpu = None
    for topic, payload in watch.messages(5.0):  # ends after 5 s with nothing new
        now = time.time() - t0
        if payload:
            count += 1
            first = first if first is not None else now
            seen.add(topic)
            if topic not in last or values_of(last[topic]) != values_of(payload):
                settled_at[topic] = now  # its values changed: settled no earlier than now
            last[topic] = payload
            if finals is not None and finals.get(topic) == values_of(payload):
                valued.add(topic)
                first_valued = first_valued if first_valued is not None else now
        if every is None and len(seen) >= expected:
            every = now
            every_cpu = cpu_seconds(serve.pid)
        if finals is not None and len(valued) >= expected:
            done = now
            done_cpu = cpu_seconds(serve.pid)
            break
        if now > timeout:
            break
    stop.set()
    sampler.join()
    if os.environ.get("TIMELINE_DEBUG") and finals is not None:
        for topic in sorted(set(finals) - valued)[:2]:
            a, b = finals[topic], values_of(last.get(topic, b""))
            at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            print("cold:   ", a[at - 200:at + 300], "\nrestart:", b[at - 200:at + 300], file=sys.stderr)
    watch.close()
    peak = max(samples, key=lambda s: s[1]) if samples else (t0, 0, None)
    settled = max(settled_at.values()) if settled_at else None
    settled_cpu = next((s[2] for s in reversed(samples) if settled is not None and s[0] - t0 <= settled), None)
    end = t0 + (done or every or 0) + 1
    kept = [s for s in samples if s[0] <= end]
    points = [(round(t - t0, 2), round(m)) for t, m, _ in kept[:: max(1, len(kept) // 12)]]
    result = {"first_s": first and round(first, 2), "all_s": every and round(every, 2),
              "first_valued_s": first_valued and round(first_valued, 2), "valued_s": done and round(done, 2),
              "valued": len(valued) if finals is not None else None, "all_cpu_s": every_cpu, "valued_cpu_s": done_cpu,
              "settled_s": settled and round(settled, 2), "settled_cpu_s": settled_cpu,
              "states": count, "peak_rss_mb": round(peak[1], 1), "peak_at_s": round(peak[0] - t0, 2), "rss": points}
    return serve, result, last


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin"); ap.add_argument("n", type=int)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    for _ in range(a.runs):
        tmp = tempfile.mkdtemp(prefix="tb-timeline-")
        port = scale.free_port()
        conf = os.path.join(tmp, "mosq.conf")
        open(conf, "w").write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                              "max_queued_messages 1000000\n")
        broker = subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs = [broker]
        try:
            for _ in range(50):
                try:
                    socket.create_connection(("127.0.0.1", port), 0.2).close(); break
                except OSError:
                    time.sleep(0.1)
            pub = mqttlite.Client(port, "timeline-pub")
            for topic, payload in scale.z2m_messages(a.n):
                pub.publish(topic, payload, retain=True)
            pub.close()
            time.sleep(1)
            log = open(os.path.join(tmp, "serve.log"), "w")
            data = os.path.join(tmp, "data")
            cold_prefix = os.environ.get("TIMELINE_COLD_PREFIX", "").split()
            serve, cold, last = measure(a.bin, port, data, log, a.n, None, a.timeout, cold_prefix)
            procs.append(serve)
            serve.send_signal(signal.SIGTERM); serve.wait(30)
            finals = {t: values_of(p) for t, p in last.items()}
            clear = mqttlite.Client(port, "timeline-clear")
            for topic in finals:
                clear.publish(topic, b"", retain=True)
            clear.close()
            time.sleep(1)
            if os.environ.get("TIMELINE_HISTORY"):  # a history to restart beside (TB_BENCH=history-seed)
                for suffix in ("-wal", "-shm"):
                    if os.path.exists(os.path.join(data, "history.sqlite" + suffix)):
                        os.remove(os.path.join(data, "history.sqlite" + suffix))
                shutil.copyfile(os.environ["TIMELINE_HISTORY"], os.path.join(data, "history.sqlite"))
            prefix = os.environ.get("TIMELINE_RESTART_PREFIX", "").split()
            serve, warm, _ = measure(a.bin, port, data, log, a.n, finals, a.timeout, prefix)
            procs.append(serve)
            serve.send_signal(signal.SIGTERM); serve.wait(30)
            print(json.dumps({"start": "cold", **cold}))
            print(json.dumps({"start": "restart", **warm}))
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
            if os.environ.get("TIMELINE_DEBUG"):
                pattern = os.environ["TIMELINE_DEBUG"]  # 1: the log's end; else its lines holding this text
                text = open(os.path.join(tmp, "serve.log")).read()
                sys.stderr.write(text[-4000:] if pattern == "1" else
                                 "".join(line for line in text.splitlines(True) if pattern in line))
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
