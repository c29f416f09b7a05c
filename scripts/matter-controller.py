"""A real Matter controller (the CHIP SDK's Python controller, from the Matter Server's venv) for the
tests of TraitBridge's own Matter device: it does one step against a device at an address and port
and prints what happened as one JSON line, so a Swift test can check it.

Steps:
  pase    establish a PASE session with the passcode (SPAKE2+ over UDP, no DNS-SD), then end.

Usage: python matter-controller.py --storage DIR --address IP --port PORT --passcode N pase
Run it where the device is reachable and nothing multicasts beyond a sandbox (scripts/sandbox.sh):
the SDK's stack starts its own mDNS.
"""

import argparse
import asyncio
import json
import os
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--storage", required=True, help="a folder for the controller's fabric (made if missing)")
    parser.add_argument("--address", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--passcode", type=int, required=True)
    parser.add_argument("--node-id", type=int, default=0x1234, help="the node id to give the device")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds for the step, at most")
    parser.add_argument("step", choices=["pase"])
    args = parser.parse_args()

    os.makedirs(args.storage, exist_ok=True)
    # Imported here: the SDK's native library is large, and --help should not need it.
    import chip.CertificateAuthority
    import chip.logging
    import chip.native
    from chip.ChipStack import ChipStack

    chip.native.Init(999)  # 999: no Bluetooth adapter
    chip.logging.SetLogFilter(chip.logging.LOG_CATEGORY_PROGRESS)
    stack = ChipStack(persistentStoragePath=os.path.join(args.storage, "chip.json"), enableServerInteractions=False)
    authorities = chip.CertificateAuthority.CertificateAuthorityManager(chipStack=stack)
    authorities.LoadAuthoritiesFromStorage()
    authority = authorities.activeCaList[0] if authorities.activeCaList else authorities.NewCertificateAuthority()
    admin = authority.adminList[0] if authority.adminList else authority.NewFabricAdmin(vendorId=0xFFF1, fabricId=1)
    controller = admin.NewController(nodeId=112233, paaTrustStorePath=args.storage)

    result: dict = {"step": args.step}
    started = time.monotonic()

    async def run() -> None:
        if args.step == "pase":
            await controller.EstablishPASESessionIP(args.address, args.passcode, args.node_id, args.port)
            result["established"] = True

    try:
        asyncio.run(asyncio.wait_for(run(), timeout=args.timeout))
    except Exception as error:  # reported to the test, which decides
        result["established"] = False
        result["error"] = f"{type(error).__name__}: {error}"
    result["seconds"] = round(time.monotonic() - started, 3)
    print(json.dumps(result), flush=True)
    try:
        controller.Shutdown()
        authorities.Shutdown()
        stack.Shutdown()
    except Exception as error:
        print(json.dumps({"shutdown": f"{type(error).__name__}: {error}"}), file=sys.stderr, flush=True)
    return 0 if result.get("established") else 1


if __name__ == "__main__":
    sys.exit(main())
