"""A real Matter controller (the CHIP SDK's Python controller, from the Matter Server's venv) for the
tests of TraitBridge's own Matter device: it does one step against a device at an address and port
and prints what happened as one JSON line, so a Swift test can check it.

Steps:
  pase      establish a PASE session with the passcode (SPAKE2+ over UDP, no DNS-SD), then end.
  discover  browse DNS-SD for commissionable nodes (`_matterc._udp`, by long discriminator when
            --discriminator is given) and list what was found.
  commission  PASE as above, then the SDK's whole commissioning (attestation against --paa-dir, CSR,
            the NOC chain, CASE found by DNS-SD, CommissioningComplete); then endpoint 1's On/Off read,
            toggled and read again over CASE.
  commission-then-resume  commission as above, then end the controller's sessions with the device
            (ExpireSessions) and read On/Off again: the SDK opens a new CASE session, and since it
            holds the first session's resumption record it asks to resume it (Sigma1 with a
            resumption ID and MIC; the device may answer Sigma2_Resume or a full Sigma2).
  resolve   resolve a node's operational record (`_matter._tcp`) from its compressed fabric id and
            node id, and list its addresses.

Usage: python matter-controller.py --storage DIR --address IP --port PORT --passcode N pase
       python matter-controller.py --storage DIR [--discriminator N] discover
       python matter-controller.py --storage DIR --compressed-fabric-id HEX --node-id N resolve
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
    parser.add_argument("--address", help="the device's address (pase)")
    parser.add_argument("--port", type=int, help="the device's port (pase)")
    parser.add_argument("--passcode", type=int, help="the setup passcode (pase)")
    parser.add_argument("--node-id", type=lambda text: int(text, 0), default=0x1234,
                        help="the node id to give the device (pase), or to resolve (resolve)")
    parser.add_argument("--discriminator", type=int, help="the long discriminator to browse for (discover)")
    parser.add_argument("--compressed-fabric-id", type=lambda text: int(text, 16),
                        help="the fabric's compressed id, in hex (resolve)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds for the step, at most")
    parser.add_argument("--paa-dir", help="PAA roots (.der) the commissioning trusts (commission; default: --storage)")
    parser.add_argument("--result", help="also write the result's JSON to this file (the SDK's own logging "
                        "shares stdout and can splice into the printed line)")
    parser.add_argument("step", choices=["pase", "commission", "commission-then-resume", "discover", "resolve"])
    args = parser.parse_args()
    needed = {"discover": [], "resolve": ["compressed_fabric_id"]}.get(args.step, ["address", "port", "passcode"])
    missing = [name for name in needed if getattr(args, name) is None]
    if missing:
        parser.error(f"{args.step} needs --{', --'.join(name.replace('_', '-') for name in missing)}")

    os.makedirs(args.storage, exist_ok=True)
    # Imported here: the SDK's native library is large, and --help should not need it.
    import chip.CertificateAuthority
    import chip.discovery
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
    controller = admin.NewController(nodeId=112233, paaTrustStorePath=args.paa_dir or args.storage)

    result: dict = {"step": args.step}
    started = time.monotonic()

    async def run() -> None:
        # DNS-SD only: no session with the device.
        if args.step == "discover":
            return await discover()
        if args.step == "resolve":
            return await resolve()
        # Each phase's wall time, for BENCHMARKS (the tests print them; none asserts a time).
        phase = time.monotonic()
        await controller.EstablishPASESessionIP(args.address, args.passcode, args.node_id, args.port)
        result["established"] = True
        result["paseSeconds"] = round(time.monotonic() - phase, 3)
        if args.step in ("commission", "commission-then-resume"):
            from chip.clusters import Objects as clusters

            result["commissioned"] = False
            phase = time.monotonic()
            result["nodeID"] = await controller.Commission(args.node_id)
            result["commissioned"] = True
            # From PASE established to CommissioningComplete answered: reads, fail-safe, attestation, CSR,
            # AddNOC, the node found by DNS-SD, a full CASE, CommissioningComplete.
            result["commissionSeconds"] = round(time.monotonic() - phase, 3)
            on_off = clusters.OnOff.Attributes.OnOff

            async def read_on_off():
                values = await controller.ReadAttribute(args.node_id, [(1, on_off)])
                return values[1][clusters.OnOff][on_off]

            phase = time.monotonic()
            result["onOff"] = [await read_on_off()]
            result["readSeconds"] = round(time.monotonic() - phase, 3)
            await controller.SendCommand(args.node_id, 1, clusters.OnOff.Commands.Toggle())
            result["onOff"].append(await read_on_off())
            name = await controller.ReadAttribute(args.node_id, [(0, clusters.BasicInformation.Attributes.VendorName)])
            result["vendorName"] = name[0][clusters.BasicInformation][clusters.BasicInformation.Attributes.VendorName]
            if args.step == "commission-then-resume":
                # Drops the CASE session (not the resumption record): the read needs a new one.
                controller.ExpireSessions(args.node_id)
                phase = time.monotonic()
                result["onOffAfterNewSession"] = await read_on_off()
                result["resumedReadSeconds"] = round(time.monotonic() - phase, 3)  # CASE resumed, then a read

    async def discover() -> None:
        # Stops at the first answer, or after the step's time less a margin for the rest.
        by, value = chip.discovery.FilterType.NONE, None
        if args.discriminator is not None:
            by, value = chip.discovery.FilterType.LONG_DISCRIMINATOR, args.discriminator
        nodes = await controller.DiscoverCommissionableNodes(
            filterType=by, filter=value, stopOnFirst=True, timeoutSecond=max(1, int(args.timeout) - 5))
        result["found"] = [
            {
                "instanceName": node.instanceName, "hostName": node.hostName, "port": node.port,
                "discriminator": node.longDiscriminator, "vendorID": node.vendorId, "productID": node.productId,
                "commissioningMode": node.commissioningMode, "deviceType": node.deviceType,
                "deviceName": node.deviceName, "pairingHint": node.pairingHint,
                "idleInterval": node.mrpRetryIntervalIdle, "activeInterval": node.mrpRetryIntervalActive,
                "addresses": node.addresses or [],
            }
            for node in nodes or []
        ]

    async def resolve() -> None:
        # The SDK's resolver, by compressed fabric id and node id: it calls back once with what it
        # gathered, at the first answer or when the time is up.
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        chip.discovery.FindAddressAsync(
            args.compressed_fabric_id, args.node_id,
            lambda found: loop.call_soon_threadsafe(done.set_result, found),
            timeout_ms=int(max(1.0, args.timeout - 5) * 1000))
        found = await done
        result["addresses"] = sorted(
            # The SDK's callback hands the address over as bytes.
            ({"ip": bytes(address.ip).decode(), "port": address.port} for address in found.addresses),
            key=lambda address: (address["ip"], address["port"]))

    try:
        asyncio.run(asyncio.wait_for(run(), timeout=args.timeout))
    except Exception as error:  # reported to the test, which decides
        if args.step not in ("discover", "resolve"):
            result["established"] = result.get("established", False)
        result["error"] = f"{type(error).__name__}: {error}"
    result["seconds"] = round(time.monotonic() - started, 3)
    print(json.dumps(result), flush=True)
    if args.result:
        with open(args.result + ".part", "w", encoding="utf-8") as file:
            file.write(json.dumps(result))
        os.replace(args.result + ".part", args.result)
    try:
        controller.Shutdown()
        authorities.Shutdown()
        stack.Shutdown()
    except Exception as error:
        print(json.dumps({"shutdown": f"{type(error).__name__}: {error}"}), file=sys.stderr, flush=True)
    return 0 if result.get("established") or result.get("found") or result.get("addresses") else 1


if __name__ == "__main__":
    sys.exit(main())
