#!/usr/bin/env bash
# Installs schemathesis (PyPI), the property-based tester the API tests run against the served
# OpenAPI document, into .build-schemathesis/venv, once (idempotent; prints nothing when it is there).
# Needs python3 with venv (Debian's python3-venv, which scripts/install-matter-server.sh installs).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build-schemathesis/venv
version=4.32.5
if [ -x "$venv/bin/schemathesis" ] && [ "$(cat "$venv/.traitbridge-version" 2>/dev/null)" = "$version" ]; then
    exit 0
fi
echo "install-schemathesis: schemathesis==$version into $venv (about 20 s)"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "schemathesis==$version"
echo "$version" > "$venv/.traitbridge-version"
