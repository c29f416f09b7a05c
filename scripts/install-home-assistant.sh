#!/usr/bin/env bash
# Installs Home Assistant Core (homeassistant==2025.4.4, the newest release for Python 3.13.0) into a
# virtual environment at .build-homeassistant/venv, once (idempotent), for the Home Assistant discovery
# tests (#53), together with the requirements of every integration a minimal test configuration sets up
# (the always-loaded defaults such as frontend, plus mqtt, api, config, http), so that Home Assistant,
# started with --skip-pip, never installs anything at test time.
# Needs a CPython 3.13 (Home Assistant 2025.x refuses older ones): python3.13 on PATH, or pyenv's
# ~/.pyenv/versions/3.13.*; Debian bookworm's python3 is 3.11. Packages come through uv (the version
# Home Assistant itself pins), installed into the venv by pip: about 1.5 minutes without a cache
# (pip alone takes over 6), about 700 MB. Prints nothing when everything is there already.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build-homeassistant/venv
version=2025.4.4
uv_version=0.6.10
# Integrations the tests' configuration.yaml names, besides bootstrap's always-loaded ones.
extra_integrations="mqtt api config http"
if [ -x "$venv/bin/hass" ] && [ "$(cat "$venv/.traitbridge-version" 2>/dev/null)" = "$version" ]; then
    exit 0
fi
python=""
for candidate in python3.13 \
    $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13 2>/dev/null | sort -V -r); do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" -c 'import sys, ssl, sqlite3, venv; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null; then
        python=$(command -v "$candidate")
        break
    fi
done
if [ -z "$python" ]; then
    echo "install-home-assistant: Home Assistant $version needs CPython 3.13 (python3.13 or pyenv's 3.13.x); none found" >&2
    exit 1
fi
echo "install-home-assistant: homeassistant==$version with $python into $venv (about 1.5 minutes)"
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$python" -m venv "$venv"
timeout 120 "$venv/bin/pip" install -q --disable-pip-version-check "uv==$uv_version"
export UV_HTTP_TIMEOUT=60
timeout 900 "$venv/bin/uv" pip install -q --python "$venv/bin/python" "homeassistant==$version"
# The requirements of the integrations Home Assistant will set up, read from their manifests (with
# their dependencies), pinned by Home Assistant's own package constraints. isal and sentry are only
# set up when configured, so they are left out.
requirements=$("$venv/bin/python" - $extra_integrations <<'EOF'
import json, pathlib, sys
import homeassistant.bootstrap as b
components = pathlib.Path(b.__file__).parent / "components"
todo = [*b.CORE_INTEGRATIONS, *b.LOGGING_AND_HTTP_DEPS_INTEGRATIONS, *b.FRONTEND_INTEGRATIONS,
        *b.DEFAULT_INTEGRATIONS, *sys.argv[1:]]
todo = [d for d in todo if d not in ("isal", "sentry")]
seen, requirements = set(), set()
while todo:
    domain = todo.pop()
    if domain in seen:
        continue
    seen.add(domain)
    manifest = json.loads((components / domain / "manifest.json").read_text())
    requirements.update(manifest.get("requirements", []))
    todo += manifest.get("dependencies", [])
print("\n".join(sorted(requirements)))
EOF
)
# shellcheck disable=SC2086
timeout 600 "$venv/bin/uv" pip install -q --python "$venv/bin/python" \
    -c "$("$venv/bin/python" -c 'import homeassistant, os; print(os.path.dirname(homeassistant.__file__))')/package_constraints.txt" \
    $requirements
"$venv/bin/python" -c 'import paho.mqtt, hass_frontend' # the two that the install of homeassistant lacks
echo "$version" > "$venv/.traitbridge-version"
