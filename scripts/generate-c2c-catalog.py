#!/usr/bin/env python3
"""Generate mappings/catalog/google-c2c.json from Google's smart home JSON Schemas.

Reads ../shared/reference/google-smart-home-schema (Google's draft-07 schemas, Nov 2022 snapshot)
and writes, in the catalog format, one `google` trait per Cloud-to-cloud trait and one `google`
device type per Cloud-to-cloud device type. The output is committed: the project builds and runs
without ../shared.

Why: a C2C trait with a Matter equivalent is imported as that Matter trait (the conversion table is
mappings/cloud/google-c2c.json, written by hand); every other C2C trait is imported as the `google`
trait generated here, which keeps the trait's SYNC attributes and QUERY states under Google's own
names, with the format and bounds the schema gives.

Usage: scripts/generate-c2c-catalog.py [REFERENCE_DIR] [OUTPUT_FILE]   (or `make catalog`)

Decisions:
- Trait `action.devices.traits.OpenClose` -> `google.OpenClose`; its attributes are the top-level
  properties of `<trait>.attributes.schema.json` (SYNC) and `<trait>.states.schema.json` (QUERY),
  including those inside anyOf/oneOf branches. A name in both keeps the state's definition.
- JSON type -> format: boolean bool, integer int64, number float, string string, object struct,
  array list; a property allowing several types (`availableThermostatModes`: array or string)
  becomes list (the importer normalises the string form). String enums become validValues.
- Commands: every command of the trait's index.yaml, with its params' top-level properties as
  optional fields of the same formats (the schemas' oneOf branches make most params optional).
- OccupancySensing is newer than the snapshot; it is added from google-home-notes.md §2.3.
- Type `action.devices.types.AC_UNIT` -> `google.AcUnit` (UpperCamel, letters and digits). A name
  already taken by a Home APIs type in mappings/catalog/google.json (Camera, Doorbell) gets the
  prefix `Cloud` (`google.CloudCamera`): those Home APIs types require traits a C2C camera lacks.
  C2C device types require no trait: Google requires none in SYNC.
"""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REF = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "reference")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "mappings", "catalog", "google-c2c.json")
SCHEMA = os.path.join(REF, "google-smart-home-schema")
TAKEN_TYPE_NAMES = {"Camera", "Doorbell"}


def load(*parts):
    with open(os.path.join(SCHEMA, *parts)) as f:
        return json.load(f)


def camel(upper_snake):
    return "".join(part.capitalize() for part in upper_snake.split("_"))


def properties(schema):
    """Top-level properties of an object schema, including anyOf/oneOf/allOf branches, in order."""
    found = {}
    if not isinstance(schema, dict):
        return found
    for name, value in schema.get("properties", {}).items():
        found.setdefault(name, value)
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, []):
            for name, value in properties(branch).items():
                found.setdefault(name, value)
    return found


def metadata(prop):
    kinds = prop.get("type")
    if kinds is None and "oneOf" in prop:
        kinds = [b.get("type") for b in prop["oneOf"] if "type" in b]
    if isinstance(kinds, list):
        kinds = "array" if "array" in kinds else kinds[0] if kinds else "object"
    fmt = {"boolean": "bool", "integer": "int64", "number": "float", "string": "string",
           "object": "struct", "array": "list"}.get(kinds, "struct")
    result = {"format": fmt}
    if fmt in ("int64", "float"):
        if "minimum" in prop:
            result["min"] = prop["minimum"]
        if "maximum" in prop:
            result["max"] = prop["maximum"]
    if fmt == "string" and isinstance(prop.get("enum"), list) and prop["enum"]:
        result["validValues"] = [{"value": v} for v in prop["enum"]]
    return result


def read_yaml_commands(path):
    """The commands of a trait's index.yaml: name -> params schema file (tiny YAML subset)."""
    commands, current, in_commands = {}, None, False
    with open(path) as f:
        for line in f:
            if line.startswith("commands:"):
                in_commands = True
                continue
            if in_commands and re.match(r"^\S", line):
                in_commands = False
            if not in_commands:
                continue
            m = re.match(r"^  action\.devices\.commands\.(\w+):", line)
            if m:
                current = m.group(1)
                commands[current] = None
                continue
            m = re.match(r"^\s+\$ref: (\S+\.params\.schema\.json)", line)
            if m and current and commands[current] is None:
                commands[current] = m.group(1)
    return commands


def trait_entry(folder):
    index = os.path.join(SCHEMA, "traits", folder, "index.yaml")
    with open(index) as f:
        name = re.search(r"^name: action\.devices\.traits\.(\w+)", f.read(), re.M).group(1)
    attributes = {}
    for role, suffix in (("sync", "attributes"), ("state", "states")):
        path = os.path.join(SCHEMA, "traits", folder, f"{folder}.{suffix}.schema.json")
        if not os.path.exists(path):
            continue
        for prop_name, prop in properties(load("traits", folder, f"{folder}.{suffix}.schema.json")).items():
            entry = {"name": prop_name, **metadata(prop)}
            if role == "state":
                entry["writable"] = True
            attributes[prop_name] = entry  # a state wins over a SYNC attribute of the same name
    commands = []
    for command, params in read_yaml_commands(index).items():
        fields = []
        if params and os.path.exists(os.path.join(SCHEMA, "traits", folder, params)):
            for field_name, prop in properties(load("traits", folder, params)).items():
                fields.append({"name": field_name, **metadata(prop), "optional": True})
        commands.append({"name": command, "fields": fields})
    return {
        "id": f"google.{name}",
        "name": f"{name} (Cloud-to-cloud)",
        "spec": f"google-smart-home-schema traits/{folder} (action.devices.traits.{name})",
        "attributes": list(attributes.values()),
        "commands": commands,
    }


def occupancy_sensing():
    return {
        "id": "google.OccupancySensing",
        "name": "OccupancySensing (Cloud-to-cloud)",
        "spec": "google-home-notes.md §2.3 OccupancySensing (newer than the schema snapshot)",
        "attributes": [
            {"name": "occupancySensorConfiguration", "format": "list"},
            {"name": "occupancy", "format": "string", "writable": True,
             "validValues": [{"value": v} for v in ("OCCUPIED", "UNOCCUPIED", "UNKNOWN_OCCUPANCY_STATE")]},
        ],
        "commands": [],
    }


def main():
    traits = [trait_entry(folder) for folder in sorted(os.listdir(os.path.join(SCHEMA, "traits")))]
    traits.append(occupancy_sensing())
    traits.sort(key=lambda t: t["id"])
    types = []
    for full in load("platform", "types.schema.json")["enum"]:
        c2c = full.rsplit(".", 1)[1]
        name = camel(c2c)
        if name in TAKEN_TYPE_NAMES:
            name = "Cloud" + name
        types.append({
            "id": f"google.{name}",
            "name": f"{c2c} (Cloud-to-cloud)",
            "required": [],
            "optional": [],
            "spec": f"google-smart-home-schema platform/types.schema.json ({full})",
        })
    out = {
        "$comment": "GENERATED by scripts/generate-c2c-catalog.py from Google's smart home JSON Schemas "
                    "(../shared/reference/google-smart-home-schema); do not edit by hand, run `make catalog`.",
        "traits": traits,
        "deviceTypes": types,
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {OUT}: {len(traits)} traits, {len(types)} device types")


if __name__ == "__main__":
    main()
