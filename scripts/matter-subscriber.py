"""A long-lived Matter subscriber for scripts/bench-matter-latency.py: the CHIP SDK's Python controller
(from the Matter Server's venv) commissions a device over IP (PASE with the passcode, then the SDK's
whole commissioning, attestation against --paa-dir), reads each endpoint's Bridged Device Basic
Information NodeLabel, subscribes with a minimum interval of 0 to On/Off's OnOff on every endpoint
(--scope onoff) or to everything (--scope all), and prints one JSON line per attribute a report changed,
stamped in the SDK's thread as the report ends with time.monotonic() (CLOCK_MONOTONIC: the same in every
network namespace of the machine, so the benchmark compares it with its own).

Lines (stdout, one JSON object each; anything else on stdout is the SDK's and not JSON):
  {"commissioned": true, "pase_s": …, "commission_s": …}
  {"labels": {"<NodeLabel>": endpoint, …}}
  {"subscribed": true, "seconds": …}
  {"at": monotonic, "endpoint": E, "cluster": C, "attribute": A, "value": …}   per changed path
  {"error": "…"}
Ends when stdin closes or after --timeout seconds. Run it inside a network sandbox (scripts/sandbox.sh):
the SDK's stack starts its own mDNS.

  python matter-subscriber.py --storage DIR --paa-dir DIR --address IP --port PORT --passcode N
"""
import argparse, asyncio, json, os, sys, threading, time

LOCK = threading.Lock()


def say(value):
    with LOCK:
        sys.stdout.write(json.dumps(value, default=str) + "\n")
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--storage", required=True)
    parser.add_argument("--paa-dir", required=True)
    parser.add_argument("--address", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--passcode", type=int, required=True)
    parser.add_argument("--node-id", type=int, default=0x1234)
    parser.add_argument("--scope", choices=["onoff", "all"], default="onoff")
    parser.add_argument("--max-interval", type=int, default=60, help="the subscription's MaxIntervalCeiling (s)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds alive, at most")
    parser.add_argument("--commission-timeout", type=float, default=120)
    parser.add_argument("--log", choices=["error", "progress"], default="error", help="the SDK's log filter")
    args = parser.parse_args()
    os.makedirs(args.storage, exist_ok=True)
    import chip.CertificateAuthority
    import chip.logging
    import chip.native
    from chip.ChipStack import ChipStack
    from chip.clusters import Objects as clusters

    chip.native.Init(999)  # no Bluetooth adapter
    chip.logging.SetLogFilter(chip.logging.LOG_CATEGORY_ERROR if args.log == "error"
                              else chip.logging.LOG_CATEGORY_PROGRESS)
    stack = ChipStack(persistentStoragePath=os.path.join(args.storage, "chip.json"), enableServerInteractions=False)
    authorities = chip.CertificateAuthority.CertificateAuthorityManager(chipStack=stack)
    authorities.LoadAuthoritiesFromStorage()
    authority = authorities.activeCaList[0] if authorities.activeCaList else authorities.NewCertificateAuthority()
    admin = authority.adminList[0] if authority.adminList else authority.NewFabricAdmin(vendorId=0xFFF1, fabricId=1)
    controller = admin.NewController(nodeId=112233, paaTrustStorePath=args.paa_dir)
    node = args.node_id
    subscription = None

    def changed(path, transaction):
        at = time.monotonic()  # first: the report has just ended, in the SDK's thread
        try:  # the raw value: GetAttribute would first decode every path not decoded yet (the priming's)
            value = transaction.GetTLVAttribute(path.Path)
        except Exception as error:
            value = f"{type(error).__name__}"
        say({"at": at, "endpoint": path.Path.EndpointId, "cluster": path.Path.ClusterId,
             "attribute": path.Path.AttributeId, "value": value})

    async def run():
        nonlocal subscription
        started = time.monotonic()
        await asyncio.wait_for(controller.EstablishPASESessionIP(args.address, args.passcode, node, args.port),
                               timeout=args.commission_timeout)
        pased = time.monotonic()
        await asyncio.wait_for(controller.Commission(node), timeout=args.commission_timeout)
        say({"commissioned": True, "pase_s": round(pased - started, 3),
             "commission_s": round(time.monotonic() - started, 3)})
        label = clusters.BridgedDeviceBasicInformation.Attributes.NodeLabel
        read = await controller.ReadAttribute(node, [label])
        say({"labels": {clusters_[clusters.BridgedDeviceBasicInformation][label]: endpoint
                        for endpoint, clusters_ in read.items()
                        if clusters.BridgedDeviceBasicInformation in clusters_}})
        paths = [clusters.OnOff.Attributes.OnOff] if args.scope == "onoff" else ["*"]  # "*": every path
        started = time.monotonic()
        subscription = await controller.ReadAttribute(node, paths, reportInterval=(0, args.max_interval))
        subscription.SetAttributeUpdateCallback(changed)
        subscription.SetErrorCallback(lambda code, _: say({"error": f"subscription error {code}"}))
        say({"subscribed": True, "seconds": round(time.monotonic() - started, 3)})
        # Until stdin closes (the benchmark is done) or the time is up (bounded() below).
        loop, closed = asyncio.get_running_loop(), asyncio.Event()
        threading.Thread(target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(closed.set)),
                         daemon=True).start()
        await closed.wait()

    async def bounded():
        await asyncio.wait_for(run(), timeout=args.timeout)

    try:
        asyncio.run(bounded())
    except Exception as error:
        say({"error": f"{type(error).__name__}: {error}"})
    try:
        if subscription is not None:
            subscription.Shutdown()
        controller.Shutdown()
        authorities.Shutdown()
        stack.Shutdown()
    except Exception as error:
        print(f"shutdown: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
    os._exit(0)  # the SDK's threads and the executor's stdin read must not hold the process


if __name__ == "__main__":
    main()
