#!/usr/bin/env python3
"""A real HomeKit controller (aiohomekit, the one Home Assistant uses) driven line by line: the
HomeKit tests and benchmarks run it inside a network sandbox (scripts/sandbox.sh), where it finds
the bridge by mDNS. Each line on stdin is one JSON command; each answer is one JSON line on stdout,
and events arrive as {"event": [[aid, iid, value], ...]} lines in between.

  {"op": "find", "id": "AA:BB:…"}                 → {"ok": true, "address", "port", "txt"}
  {"op": "pair", "id": "AA:BB:…", "code": "…"}     → {"ok": true} or {"ok": false, "error": "<Class>: …"}
  {"op": "verify"}                                 → {"ok": true, "seconds"}: a new connection's pair-verify
  {"op": "accessories"}                            → {"ok": true, "accessories": [...]}
  {"op": "get", "ids": [[aid, iid], ...]}          → {"ok": true, "values": {"aid.iid": {...}}}
  {"op": "put", "values": [[aid, iid, value]]}     → {"ok": true, "statuses": {"aid.iid": {...}}}
  {"op": "subscribe", "ids": [[aid, iid], ...]}    → {"ok": true}
  {"op": "hold", "count": n, "ids": [[aid, iid]]} → {"ok": true, "held"}: n more sessions, subscribed, kept open
  {"op": "pairings"}                               → {"ok": true, "pairings": [...]}
  {"op": "unpair"}                                 → {"ok": true}
  {"op": "quit"}

Every step is bounded in time (30 s); the process ends when stdin closes.
"""
import asyncio
import json
import sys
import time

from aiohomekit import Controller
from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

ALIAS = "bridge"


def say(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def failure(error):
    return {"ok": False, "error": f"{type(error).__name__}: {error}"}


class Session:
    def __init__(self):
        self.zeroconf = None
        self.controller = None
        self.pairing = None
        self.verifies = 0
        self.held = []

    async def start(self):
        self.zeroconf = AsyncZeroconf()
        # aiohomekit looks for a browser of its service types on the instance (Home Assistant runs one).
        self.browser = AsyncServiceBrowser(
            self.zeroconf.zeroconf, ["_hap._tcp.local.", "_hap._udp.local."], handlers=[lambda **_: None])
        self.controller = Controller(async_zeroconf_instance=self.zeroconf, char_cache=CharacteristicCacheMemory())
        await self.controller.async_start()

    async def run(self, command):
        op = command.get("op")
        if op == "find":
            discovery = await self.controller.async_find(command["id"], timeout=20)
            description = discovery.description
            return {"ok": True, "address": description.address, "port": description.port,
                    "configNumber": description.config_num, "statusFlags": int(description.status_flags)}
        if op == "pair":
            discovery = await self.controller.async_find(command["id"], timeout=20)
            started = time.monotonic()
            finish = await discovery.async_start_pairing(ALIAS)
            self.pairing = await finish(command["code"])
            return {"ok": True, "seconds": time.monotonic() - started}
        if op == "verify":
            # A new connection of the same pairing: TCP, pair-verify, one request (/pairings).
            self.verifies += 1
            started = time.monotonic()
            fresh = self.controller.load_pairing(f"verify-{self.verifies}", dict(self.pairing._pairing_data))
            await fresh.list_pairings()
            seconds = time.monotonic() - started
            await fresh.close()
            return {"ok": True, "seconds": seconds}
        if op == "hold":
            # `count` more sessions of this pairing, each verified and subscribed to `ids`, kept open
            # (what more controllers cost the bridge); closed at quit.
            for _ in range(command["count"]):
                self.verifies += 1
                extra = self.controller.load_pairing(f"hold-{self.verifies}", dict(self.pairing._pairing_data))
                await extra.list_pairings()
                await extra.subscribe([tuple(pair) for pair in command.get("ids", [])])
                self.held.append(extra)
            return {"ok": True, "held": len(self.held)}
        if op == "accessories":
            return {"ok": True, "accessories": await self.pairing.list_accessories_and_characteristics()}
        if op == "get":
            values = await self.pairing.get_characteristics([tuple(pair) for pair in command["ids"]])
            return {"ok": True, "values": {f"{aid}.{iid}": value for (aid, iid), value in values.items()}}
        if op == "put":
            statuses = await self.pairing.put_characteristics([tuple(item) for item in command["values"]])
            return {"ok": True, "statuses": {f"{aid}.{iid}": value for (aid, iid), value in statuses.items()}}
        if op == "subscribe":
            def on_event(event):
                say({"event": [[aid, iid, value.get("value")] for (aid, iid), value in event.items()],
                     "at": time.monotonic()})
            self.pairing.dispatcher_connect(on_event)
            await self.pairing.subscribe([tuple(pair) for pair in command["ids"]])
            return {"ok": True}
        if op == "pairings":
            return {"ok": True, "pairings": await self.pairing.list_pairings()}
        if op == "unpair":
            await self.pairing.remove_pairing(self.pairing._pairing_data["iOSPairingId"])
            await self.pairing.close()
            self.pairing = None
            return {"ok": True}
        return {"ok": False, "error": f"unknown op {op}"}


async def main():
    session = Session()
    await session.start()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    say({"ready": True})
    while True:
        line = await reader.readline()
        if not line:
            break
        try:
            command = json.loads(line)
        except ValueError as error:
            say(failure(error))
            continue
        if command.get("op") == "quit":
            break
        try:
            say(await asyncio.wait_for(session.run(command), 30))
        except Exception as error:  # every failure is answered with its class: the test asserts on it
            say(failure(error))
    for held in session.held:
        await held.close()
    if session.pairing is not None:
        await session.pairing.close()
    await session.zeroconf.async_close()


asyncio.run(main())
