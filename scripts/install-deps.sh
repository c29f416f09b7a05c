#!/usr/bin/env bash
# Installs the Debian packages TraitBridge needs, and only those that are missing (idempotent).
# Used by `make`, `.ci/run` and the README's commands. Needs root or sudo when something is missing.
# With arguments, installs those packages instead (scripts/install-browser.sh: chromium).
set -euo pipefail

packages=(mosquitto mosquitto-clients libmosquitto-dev libjson-c-dev libsqlite3-dev pkg-config python3-jsonschema
    python3-prometheus-client openssl libssl-dev tcpdump iproute2)
if [ $# -gt 0 ]; then
    packages=("$@")
fi
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo: missing ${missing[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
