"""Runs Home Assistant Core for the tests, kept off the network: loopback only.

Usage (with the Home Assistant venv's python, instead of its bin/hass):

    ha-run.py -c CONFIG_DIR --skip-pip        (any arguments of hass)

A Python audit hook (sys.addaudithook, PEP 578) is installed before Home Assistant is imported. It refuses every
socket `connect`, `sendto`, `sendmsg`, `getaddrinfo` and `gethostbyname` whose address is not loopback
(127.0.0.0/8, ::1, ::ffff:127.x, the name 'localhost'): the call raises OSError(ENETUNREACH) as if there were no
route, and one line goes to stderr, e.g.

    ha-run: refused connect to 8.8.8.8:1

Sockets of other families (AF_UNIX, AF_NETLINK) are left alone, as are getaddrinfo calls without a host (a
passive/wildcard lookup, which asks no resolver). So nothing Home Assistant does can reach the machine's own
network interfaces, a resolver or the internet; the tests read the refusals from Home Assistant's log and fail
on any they do not know.

The known ones (homeassistant 2025.4.4 with the tests' configuration): the `network` integration (always loaded)
finds the machine's source address with a UDP socket that it `connect`s to 8.8.8.8:1 and then to
224.0.0.251:1 (a UDP connect sends no packet; it only asks the kernel for a route). Both are refused here, and
Home Assistant tolerates that: `homeassistant/components/network/util.py` `async_get_source_ip` catches any
exception and returns None, and the integration then falls back to the loopback target (127.0.0.1), which is
allowed. Home Assistant still reaches RUNNING, with MQTT, http and the API working (checked by the
HomeAssistantPeer tests). If a later Home Assistant stops tolerating a refusal, the place to change is
`refused()` below: let that one call through (and say why here) rather than loosen the rule for all.

The hook cannot be removed once installed, and it also sees the code Home Assistant runs in its executor threads.
It does not see native code that opens sockets without Python's socket module (none is used by the integrations
the tests load).
"""

import errno
import ipaddress
import socket
import sys

_CHECKED = {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "socket.gethostbyname"}
_INET = (socket.AF_INET, socket.AF_INET6)


def _is_loopback(host: object) -> bool:
    if isinstance(host, (bytes, bytearray)):
        host = bytes(host).decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    name = host.split("%", 1)[0].rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False  # any other name would be a lookup
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def _where(host: object, port: object) -> str:
    if isinstance(host, (bytes, bytearray)):
        host = bytes(host).decode("ascii", "replace")
    text = f"[{host}]" if isinstance(host, str) and ":" in host else str(host)
    return text if port is None else f"{text}:{port}"


def refused(event: str, args: tuple) -> str | None:
    """What to refuse for this audit event (its description), or None to let it through."""
    kind = event.removeprefix("socket.")
    if event == "socket.getaddrinfo":
        host, port = args[0], args[1]
        if host is None or host in ("", b""):
            return None
        return None if _is_loopback(host) else f"{kind} for {_where(host, port)}"
    if event == "socket.gethostbyname":
        return None if _is_loopback(args[0]) else f"{kind} for {_where(args[0], None)}"
    sock, address = args[0], args[1]
    if getattr(sock, "family", None) not in _INET or address is None:
        return None
    if isinstance(address, tuple) and address:
        host, port = address[0], address[1] if len(address) > 1 else None
    else:
        host, port = address, None
    return None if _is_loopback(host) else f"{kind} to {_where(host, port)}"


def _hook(event: str, args: tuple) -> None:
    if event not in _CHECKED:
        return
    what = refused(event, args)
    if what is None:
        return
    try:
        sys.stderr.write(f"ha-run: refused {what}\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - stderr gone: still refuse
        pass
    raise OSError(errno.ENETUNREACH, f"ha-run: only loopback is allowed ({what})")


def main() -> int:
    sys.addaudithook(_hook)
    sys.argv[0] = "hass"
    from homeassistant.__main__ import main as hass_main

    return hass_main()


if __name__ == "__main__":
    sys.exit(main())
