#!/usr/bin/env bash
# Installs what the web UI's browser test drives: Debian's chromium and chromium-driver (no browser
# download), and selenium (PyPI) into .build-browser/venv. Idempotent: prints nothing when all is
# there. Needs root or sudo when the Debian packages are missing, and python3 with venv.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for package in chromium chromium-driver; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-browser: installing ${missing[*]} (about 40 s)"
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "install-browser: run as root or install sudo" >&2; exit 1; }
        sudo_cmd=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
venv=.build-browser/venv
version=4.38.0
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.traitbridge-version" 2>/dev/null)" = "$version" ]; then
    exit 0
fi
echo "install-browser: selenium==$version into $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "selenium==$version"
echo "$version" > "$venv/.traitbridge-version"
