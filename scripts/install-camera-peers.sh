#!/usr/bin/env bash
# Installs aiortc (PyPI: a real WebRTC stack) and aiohttp into .build-camera/venv, once (idempotent;
# prints nothing when they are there): the simulated camera's go2rtc-compatible WebRTC endpoint
# (scripts/camera-peer.py) and the test viewer (scripts/camera-viewer.py). Both run only inside a
# network namespace the tests make (scripts/sandbox.sh), with no ICE servers.
# Needs python3 with venv (Debian's python3-venv, which scripts/install-matter-server.sh installs).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build-camera/venv
version="aiortc==1.16.0 aiohttp==3.14.5"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.traitbridge-version" 2>/dev/null)" = "$version" ]; then
    exit 0
fi
echo "install-camera-peers: $version into $venv (about 15 s)"
rm -rf "$venv"
python3 -m venv "$venv"
# shellcheck disable=SC2086
"$venv/bin/pip" install -q --disable-pip-version-check $version
echo "$version" > "$venv/.traitbridge-version"
