#!/usr/bin/env bash
# Installs the HomeKit tests' peers, once (idempotent; prints nothing when they are there):
# Avahi (Debian's avahi-daemon and avahi-utils, the mDNS responder the bridge announces through,
# with dbus) and aiohomekit (PyPI: the HomeKit controller Home Assistant uses) into
# .build-homekit/venv. Both run only inside a network namespace the tests make (scripts/sandbox.sh
# and scripts/homekit-responder.sh): nothing multicasts on the machine's own interfaces.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v avahi-daemon >/dev/null || [ -x /usr/sbin/avahi-daemon ] || missing+=(avahi-daemon)
command -v avahi-publish >/dev/null || missing+=(avahi-utils)
command -v dbus-daemon >/dev/null || missing+=(dbus)
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-homekit-peers: apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # Its own service must not start on the machine's interfaces: policy-rc.d says no while it installs.
    made_policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
        chmod +x /usr/sbin/policy-rc.d
        made_policy=1
    fi
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
fi
venv=.build-homekit/venv
version="aiohomekit==4.0.1"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.traitbridge-version" 2>/dev/null)" = "$version" ]; then
    exit 0
fi
echo "install-homekit-peers: $version into $venv (about 20 s)"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$version"
echo "$version" > "$venv/.traitbridge-version"
