"""Makes a Home Assistant config directory ready for a test, before Home Assistant starts there.

Usage (with the Home Assistant venv's python, .build-homeassistant/venv/bin/python):

    ha-test-prepare.py CONFIG_DIR HTTP_PORT MQTT_PORT

Writes into CONFIG_DIR:
  - configuration.yaml: every location field given (nothing to detect), http on 127.0.0.1:HTTP_PORT only,
    `api:` and `config:` but no `default_config:` (which would bring cloud, zeroconf, ssdp, dhcp, bluetooth …),
    logging at warning except the MQTT integration at debug (every message it sends, every template error);
  - .storage/onboarding with all four steps done (no onboarding, analytics never asked for, so off);
  - .storage/core.config_entries with one MQTT entry for 127.0.0.1:MQTT_PORT (what the config flow would write:
    no flow round trip at test time, the entry is loaded when Home Assistant says RUNNING);
  - .storage/auth with an admin user (the first user: owner) and a long-lived access token,
Then prints the token on stdout, and nothing else there.

The user and token are made the way `hass --script auth` does it: a HomeAssistant object that is never started.
The auth store is saved explicitly, since stopping such an object does not flush its delayed save.
Schema versions are those of homeassistant 2025.4.4 (scripts/install-home-assistant.sh); see
/work/notes/design-53.md §3.
"""

import asyncio
import json
import os
import sys
from datetime import timedelta

from homeassistant import runner
from homeassistant.auth import auth_manager_from_config
from homeassistant.auth.models import TOKEN_TYPE_LONG_LIVED_ACCESS_TOKEN
from homeassistant.core import HomeAssistant

CONFIGURATION = """\
homeassistant:
  name: TraitBridge test
  latitude: 52.52
  longitude: 13.40
  elevation: 34
  unit_system: metric
  time_zone: UTC
  country: DE
  currency: EUR
  language: en
http:
  server_host: 127.0.0.1
  server_port: {http_port}
api:
config:
logger:
  default: warning
  logs:
    homeassistant.components.mqtt: debug
"""

# Written at this fixed time so that two runs write the same bytes.
STAMP = "2026-01-01T00:00:00+00:00"


def write_json(path: str, document: dict) -> None:
    with open(path, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=1)


def write_files(config_dir: str, http_port: int, mqtt_port: int) -> None:
    storage = os.path.join(config_dir, ".storage")
    os.makedirs(storage, exist_ok=True)
    with open(os.path.join(config_dir, "configuration.yaml"), "w", encoding="utf-8") as file:
        file.write(CONFIGURATION.format(http_port=http_port))
    write_json(os.path.join(storage, "onboarding"), {
        "version": 4, "minor_version": 1, "key": "onboarding",
        "data": {"done": ["user", "core_config", "analytics", "integration"]},
    })
    mqtt_entry = {
        "entry_id": "traitbridgetestmqtt0000001", "domain": "mqtt", "title": "127.0.0.1", "source": "user",
        "version": 1, "minor_version": 2, "data": {"broker": "127.0.0.1", "port": mqtt_port}, "options": {},
        "created_at": STAMP, "modified_at": STAMP, "disabled_by": None, "discovery_keys": {},
        "pref_disable_new_entities": False, "pref_disable_polling": False, "subentries": [], "unique_id": None,
    }
    write_json(os.path.join(storage, "core.config_entries"), {
        "version": 1, "minor_version": 5, "key": "core.config_entries", "data": {"entries": [mqtt_entry]},
    })


async def make_token(config_dir: str) -> str:
    hass = HomeAssistant(config_dir)
    hass.auth = await auth_manager_from_config(hass, [{"type": "homeassistant"}], [])
    user = await hass.auth.async_create_user("TraitBridge test", group_ids=["system-admin"])
    refresh_token = await hass.auth.async_create_refresh_token(
        user, client_name="traitbridge-tests", token_type=TOKEN_TYPE_LONG_LIVED_ACCESS_TOKEN,
        access_token_expiration=timedelta(days=3650))
    token = hass.auth.async_create_access_token(refresh_token)
    auth_store = hass.auth._store  # noqa: SLF001 - no public way to save now rather than after a delay
    await auth_store._store.async_save(auth_store._data_to_save())  # noqa: SLF001
    await hass.async_stop()
    return token


def main() -> int:
    if len(sys.argv) != 4:
        print("usage: ha-test-prepare.py CONFIG_DIR HTTP_PORT MQTT_PORT", file=sys.stderr)
        return 2
    config_dir, http_port, mqtt_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    write_files(config_dir, http_port, mqtt_port)
    asyncio.set_event_loop_policy(runner.HassEventLoopPolicy(False))
    token = asyncio.run(make_token(config_dir))
    if not os.path.exists(os.path.join(config_dir, ".storage", "auth")):
        print("ha-test-prepare: the auth store was not written", file=sys.stderr)
        return 1
    print(token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
