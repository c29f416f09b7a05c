#!/usr/bin/env bash
# Installs the Open Home Foundation Matter Server (python-matter-server[server]==7.0.1) and the
# software Matter light's circuitmatter 0.4.1 + zeroconf into a virtual environment at
# .build-matter/venv, once (idempotent), for the Matter tests, the simulator and the demo.
# Its CHIP stack needs Debian's libnl-route-3-200 and writes to /data.
# Prints nothing when everything is there already. Needs root or sudo for the first two.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build-matter/venv
version=7.0.1
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for package in libnl-route-3-200 libnl-3-200 python3-venv; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# python3-venv is Debian's; a python3 that has its own venv (pyenv) does not need it.
if python3 -c 'import venv, ensurepip' 2>/dev/null; then
    missing=("${missing[@]/python3-venv/}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-matter-server: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ -d /data ] || "${sudo_cmd[@]}" mkdir -p /data
if [ -x "$venv/bin/matter-server" ] && [ "$(cat "$venv/.traitbridge-version" 2>/dev/null)" = "$version" ]; then
    # The software Matter light of the tests and the demo (scripts/matter-light.py), in the same venv.
    if [ ! -f "$venv/.traitbridge-light" ]; then
        "$venv/bin/pip" install -q --disable-pip-version-check "circuitmatter==0.4.1" "zeroconf==0.136.2"
        touch "$venv/.traitbridge-light"
    fi
    exit 0
fi
echo "install-matter-server: python-matter-server[server]==$version into $venv (about a minute)"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "python-matter-server[server]==$version" \
    "circuitmatter==0.4.1" "zeroconf==0.136.2"
echo "$version" > "$venv/.traitbridge-version"
touch "$venv/.traitbridge-light"
