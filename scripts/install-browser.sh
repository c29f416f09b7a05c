#!/usr/bin/env bash
# Installs what the web UI's browser test drives: Debian's chromium and chromium-driver (no browser
# download), and selenium (PyPI) into .build-browser/venv. Idempotent: prints nothing when all is
# there. Needs root or sudo when the Debian packages are missing, and python3 with venv.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh chromium chromium-driver fonts-dejavu-core
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
