#!/usr/bin/env python3
"""Generate mappings/catalog/traits.json and device-types.json from the Matter reference.

Reads ../shared/reference/matter-clusters.json and matter-device-types.json (facts extracted from
the Matter 1.4.2 data model XML; the device types also carry the camera family of Matter 1.5) and
scripts/matter-1.5-cameras.json (our own facts of the 1.5 camera clusters: Camera AV Stream
Management, Camera AV Settings User Level Management, WebRTC Transport Provider and Requestor, Push
AV Stream Transport, Chime, Zone Management) and scripts/matter-1.5-closures.json (the closures:
Closure Control, Closure Dimension, and the Closure and Closure Panel device types), and writes the
Matter part of TraitBridge's catalog. The output is committed: the project builds and runs without
../shared. Google and vendor traits are written by
hand in mappings/catalog/google.json and vendor-example.json.

Usage: scripts/generate-catalog.py [REFERENCE_DIR] [OUTPUT_DIR]   (or `make catalog`)

What the script decides, and why:
- Which clusters become traits: every cluster of the reference but the infrastructure (Groups,
  Scenes, Descriptor, Binding) and a node's plumbing (commissioning, fabrics, access control, OTA).
  Names follow the Home APIs (`OnOff`, `LevelControl`, `SmokeCoAlarm`): TRAIT_CLUSTERS and
  TRAIT_NAMES where the cluster's name without spaces is not that name.
- Which device types: every one whose required clusters are all traits; the script says which it
  left out and why (closures and meters of 1.5 have only their ids and names in the reference).
- Attribute and command names are lowerCamelCase, as the Home APIs spell them.
- Matter types become formats; semantic types (temperature, percent100ths…) add their unit and range.
- UNIT_OVERRIDES adds units and ranges the XML leaves to prose (levels 1..254, mireds, half-percent).
- Required traits of a device type are Matter's mandatory server clusters, minus infrastructure
  clusters the Home APIs do not surface as traits (Groups, Scenes, Descriptor, Binding).
- A default outside the attribute's range, or one that is manufacturer-specific, is left out.
"""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
FACTS = ["matter-1.5-cameras.json", "matter-1.5-closures.json"]
REF = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "reference")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "mappings", "catalog")

# cluster id -> trait name (Home APIs spelling)
TRAIT_CLUSTERS = {
    0x0003: "Identify", 0x0006: "OnOff", 0x0008: "LevelControl", 0x0300: "ColorControl",
    0x0201: "Thermostat", 0x0204: "ThermostatUserInterfaceConfiguration", 0x0202: "FanControl",
    0x0102: "WindowCovering", 0x0101: "DoorLock", 0x0045: "BooleanState", 0x0406: "OccupancySensing",
    0x0402: "TemperatureMeasurement", 0x0405: "RelativeHumidityMeasurement",
    0x0400: "IlluminanceMeasurement", 0x0403: "PressureMeasurement", 0x002F: "PowerSource",
    0x0028: "BasicInformation", 0x0039: "BridgedDeviceBasicInformation", 0x003B: "Switch",
    0x005C: "SmokeCoAlarm", 0x005B: "AirQuality", 0x0054: "RvcRunMode", 0x0055: "RvcCleanMode",
    0x0061: "RvcOperationalState", 0x0506: "MediaPlayback", 0x0509: "KeypadInput",
    0x0090: "ElectricalPowerMeasurement", 0x0091: "ElectricalEnergyMeasurement",
    0x040D: "CarbonDioxideConcentrationMeasurement", 0x042A: "Pm25ConcentrationMeasurement",
    0x009C: "PowerTopology",
}

# Matter device type id -> catalog name
DEVICE_TYPES = {
    0x0100: "OnOffLight", 0x0101: "DimmableLight", 0x010C: "ColorTemperatureLight",
    0x010D: "ExtendedColorLight", 0x010A: "OnOffPlugInUnit", 0x010B: "DimmablePlugInUnit",
    0x0103: "OnOffLightSwitch", 0x0104: "DimmerSwitch", 0x000F: "GenericSwitch",
    0x0015: "ContactSensor", 0x0107: "OccupancySensor", 0x0302: "TemperatureSensor",
    0x0307: "HumiditySensor", 0x0106: "LightSensor", 0x0305: "PressureSensor",
    0x0043: "WaterLeakDetector", 0x0076: "SmokeCoAlarm", 0x002C: "AirQualitySensor",
    0x000A: "DoorLock", 0x0202: "WindowCovering", 0x0301: "Thermostat", 0x002B: "Fan",
    0x002D: "AirPurifier", 0x0072: "RoomAirConditioner", 0x0074: "RoboticVacuumCleaner",
    0x0022: "Speaker", 0x0028: "BasicVideoPlayer", 0x0013: "BridgedNode", 0x000E: "Aggregator",
    0x0011: "PowerSource", 0x0510: "ElectricalSensor",
}
INFRASTRUCTURE = {0x0004, 0x0062, 0x001D, 0x001E}  # Groups, Scenes Management, Descriptor, Binding
# A node's own plumbing (commissioning, fabrics, access, diagnostics, localization, labels, time,
# software updates, joint fabric): what a controller does to a node, never a trait a person reads or
# sets through a bridge. The Matter source leaves the same clusters out (MatterCluster.infrastructure).
NODE_PLUMBING = {
    0x001F: "AccessControl", 0x0029: "OTA provider", 0x002A: "OTA requestor",
    0x002B: "LocalizationConfiguration", 0x002C: "TimeFormatLocalization", 0x002D: "UnitLocalization",
    0x002E: "PowerSourceConfiguration", 0x0030: "GeneralCommissioning", 0x0031: "NetworkCommissioning",
    0x0032: "DiagnosticLogs", 0x0033: "GeneralDiagnostics", 0x0034: "SoftwareDiagnostics",
    0x0035: "ThreadNetworkDiagnostics", 0x0036: "WiFiNetworkDiagnostics", 0x0037: "EthernetNetworkDiagnostics",
    0x0038: "TimeSynchronization", 0x003C: "AdministratorCommissioning", 0x003E: "OperationalCredentials",
    0x003F: "GroupKeyManagement", 0x0040: "FixedLabel", 0x0041: "UserLabel", 0x0046: "ICD management",
    0x0751: "CommissionerControl", 0x0752: "JointFabricDatastore", 0x0753: "JointFabricAdministrator",
}
# Names the Home APIs spell otherwise than the cluster's name without spaces.
TRAIT_NAMES = {0x0006: "OnOff", 0x005C: "SmokeCoAlarm", 0x0054: "RvcRunMode", 0x0055: "RvcCleanMode",
               0x0061: "RvcOperationalState", 0x042A: "Pm25ConcentrationMeasurement",
               0x042C: "Pm1ConcentrationMeasurement", 0x042D: "Pm10ConcentrationMeasurement",
               0x0036: "WiFiNetworkDiagnostics", 0x0451: "WiFiNetworkManagement",
               0x042E: "TotalVolatileOrganicCompoundsConcentrationMeasurement", 0x0503: "WakeOnLan",
               0x0046: "IcdManagement", 0x0071: "HepaFilterMonitoring", 0x0099: "EnergyEvse",
               0x009D: "EnergyEvseMode", 0x0551: "CameraAvStreamManagement",
               0x0552: "CameraAvSettingsUserLevelManagement", 0x0553: "WebRtcTransportProvider",
               0x0554: "WebRtcTransportRequestor", 0x0555: "PushAvStreamTransport"}


def pascal(name):
    """`Valve Configuration and Control` → `ValveConfigurationAndControl`, `PM2.5 …` → `PM25…`."""
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^A-Za-z0-9]+", name) if word)

SEMANTIC = {  # Matter semantic type -> (format, unit, min, max)
    "temperature": ("int16", "0.01 °C", -27315, 32767),
    "TemperatureDifference": ("int16", "0.01 °C", None, None),
    "SignedTemperature": ("int8", "0.1 °C", None, None),
    "UnsignedTemperature": ("uint8", "0.1 °C", None, None),
    "percent": ("uint8", "%", 0, 100),
    "percent100ths": ("uint16", "0.01 %", 0, 10000),
    "epoch-s": ("uint32", "s since 2000-01-01", None, None),
    "epoch-us": ("uint64", None, None, None),
    "posix-ms": ("uint64", "ms since 1970-01-01", None, None),
    "elapsed-s": ("uint32", "s", None, None),
    "systime-us": ("uint64", None, None, None),
    "systime-ms": ("uint64", "ms", None, None),
    "power-mW": ("int64", "mW", None, None),
    "energy-mWh": ("int64", "mWh", None, None),
    "amperage-mA": ("int64", "mA", None, None),
    "voltage-mV": ("int64", "mV", None, None),
    "vendor-id": ("uint16", None, None, None),
    "fabric-idx": ("uint8", None, None, None),
    "node-id": ("uint64", None, None, None),
    "uint24": ("uint32", None, 0, 16777215),
    "single": ("float", None, None, None),
    "double": ("float", None, None, None),
    "octstr": ("string", None, None, None),
    "char_string": ("string", None, None, None),
    "long_char_string": ("string", None, None, None),
    "long_octet_string": ("string", None, None, None),
    "enum8": ("enum", None, None, None), "enum16": ("enum", None, None, None),
    "map8": ("bitmap", None, None, None), "map16": ("bitmap", None, None, None),
    "map32": ("bitmap", None, None, None), "map64": ("bitmap", None, None, None),
}
PLAIN = {"bool", "string", "list", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}

# (cluster, attribute or "Command.field") -> overrides of unit / min / max
UNIT_OVERRIDES = {
    (0x0008, "CurrentLevel"): {"unit": "level 1..254", "min": 1, "max": 254},
    (0x0008, "OnLevel"): {"unit": "level 1..254", "min": 1, "max": 254},
    (0x0008, "MinLevel"): {"unit": "level 1..254"},
    (0x0008, "MaxLevel"): {"unit": "level 1..254"},
    (0x0008, "MoveToLevel.Level"): {"unit": "level 1..254", "min": 0, "max": 254},
    (0x0008, "MoveToLevelWithOnOff.Level"): {"unit": "level 1..254", "min": 0, "max": 254},
    (0x0300, "ColorTemperatureMireds"): {"unit": "mireds", "min": 0, "max": 65279},
    (0x0300, "ColorTempPhysicalMinMireds"): {"unit": "mireds", "min": 0, "max": 65279},
    (0x0300, "ColorTempPhysicalMaxMireds"): {"unit": "mireds", "min": 0, "max": 65279},
    (0x0300, "CoupleColorTempToLevelMinMireds"): {"unit": "mireds"},
    (0x0300, "StartUpColorTemperatureMireds"): {"unit": "mireds", "min": 0, "max": 65279},
    (0x0300, "MoveToColorTemperature.ColorTemperatureMireds"): {"unit": "mireds", "min": 0, "max": 65279},
    (0x0300, "CurrentHue"): {"min": 0, "max": 254},
    (0x0300, "CurrentSaturation"): {"min": 0, "max": 254},
    (0x0300, "CurrentX"): {"min": 0, "max": 65279},
    (0x0300, "CurrentY"): {"min": 0, "max": 65279},
    (0x0300, "MoveToHue.Hue"): {"min": 0, "max": 254},
    (0x0300, "MoveToSaturation.Saturation"): {"min": 0, "max": 254},
    (0x0300, "MoveToHueAndSaturation.Hue"): {"min": 0, "max": 254},
    (0x0300, "MoveToHueAndSaturation.Saturation"): {"min": 0, "max": 254},
    (0x0300, "MoveToColor.ColorX"): {"min": 0, "max": 65279},
    (0x0300, "MoveToColor.ColorY"): {"min": 0, "max": 65279},
    (0x002F, "BatPercentRemaining"): {"unit": "0.5 %", "min": 0, "max": 200},
    (0x002F, "BatVoltage"): {"unit": "mV"},
    (0x0400, "MeasuredValue"): {"unit": "10000*log10(lx)+1", "min": 0, "max": 65534},
    (0x0400, "MinMeasuredValue"): {"unit": "10000*log10(lx)+1"},
    (0x0400, "MaxMeasuredValue"): {"unit": "10000*log10(lx)+1"},
    (0x0403, "MeasuredValue"): {"unit": "0.1 kPa"},
    (0x0403, "MinMeasuredValue"): {"unit": "0.1 kPa"},
    (0x0403, "MaxMeasuredValue"): {"unit": "0.1 kPa"},
    (0x0405, "MeasuredValue"): {"unit": "0.01 %", "min": 0, "max": 10000},
    (0x0405, "MinMeasuredValue"): {"unit": "0.01 %"},
    (0x0405, "MaxMeasuredValue"): {"unit": "0.01 %"},
    (0x0003, "IdentifyTime"): {"unit": "s"},
    (0x0003, "Identify.IdentifyTime"): {"unit": "s"},
}
NOTE_UNITS = [(r"tenths of a second", "0.1 s"), (r"^seconds?$", "s"), (r"^Hz$", "Hz"), (r"mireds", "mireds"),
              (r"0\.01 degC", "0.01 °C"), (r"^minutes?$", "min"), (r"^ppm", "ppm")]


def hexid(text):
    return int(text, 16) if isinstance(text, str) else text


def camel(name):
    name = re.sub(r"[^A-Za-z0-9]", "", name)
    if name.isupper():
        return name.lower()
    head = re.match(r"^[A-Z]+(?=[A-Z][a-z]|\d|$)", name)
    if head and len(head.group(0)) > 1:
        return head.group(0).lower() + name[len(head.group(0)):]
    return name[:1].lower() + name[1:]


def number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return int(value, 0)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return None
    return None


class Generator:
    def __init__(self, reference):
        self.clusters = json.load(open(os.path.join(reference, "matter-clusters.json")))
        # Matter 1.5's camera and closure clusters: our facts files, in the reference's shape.
        known = {hexid(c["id"]) for c in self.clusters["clusters"]}
        self.global_enums, fact_types = {}, []
        for name in FACTS:
            facts = json.load(open(os.path.join(HERE, name)))
            for cluster in facts["clusters"]:
                if hexid(cluster["id"]) in known:
                    raise SystemExit(f"cluster {cluster['name']} is both in the reference and in {name}")
                self.clusters["clusters"].append(cluster)
            self.global_enums.update({e["name"]: e for e in facts["globals"]["enums"]})
            fact_types += facts.get("device_types", [])
        self.device_types = json.load(open(os.path.join(reference, "matter-device-types.json")))
        # A device type the reference has by id and name only takes the facts' clusters.
        by_fact = {hexid(t["id"]): t for t in fact_types}
        self.device_types["device_types"] = [
            {**t, **by_fact[hexid(t.get("id"))]} if "server_clusters" not in t and hexid(t.get("id")) in by_fact else t
            for t in self.device_types["device_types"]]
        self.by_id, self.id_names = {}, {}
        for c in self.clusters["clusters"]:  # one entry may define several clusters (Concentration Measurement)
            for alias in c.get("cluster_ids") or [{"id": c.get("id"), "name": c["name"]}]:
                if alias.get("id"):
                    self.by_id[hexid(alias["id"])] = c
                    self.id_names[hexid(alias["id"])] = alias["name"]
        self.by_name = {c["name"]: c for c in self.clusters["clusters"]}
        self.dropped_defaults = []
        self.release = self.clusters["source"].get("release", "?")

    def base_of(self, cluster):
        base = cluster.get("classification", {}).get("baseCluster")
        return self.by_name.get(base) if base else None

    def enums(self, cluster):
        found = dict(self.global_enums)
        for c in [self.base_of(cluster), cluster]:
            if c:
                for e in c.get("data_types", {}).get("enums", []):
                    found[e["name"]] = e
        return found

    def merged(self, cluster, key):
        """Elements of a derived cluster: the base's, overridden by the derived cluster's."""
        base = self.base_of(cluster)
        elements = {e["name"]: dict(e) for e in (base.get(key, []) if base else [])}
        for e in cluster.get(key, []):
            merged = dict(elements.get(e["name"], {}))
            merged.update({k: v for k, v in e.items() if v is not None})
            if e.get("conformance") is None and "conformance" in elements.get(e["name"], {}):
                merged["conformance"] = elements[e["name"]]["conformance"]
                merged["requirement"] = elements[e["name"]].get("requirement")
            elements[e["name"]] = merged
        return list(elements.values())

    def metadata(self, cluster, element, key):
        cid = hexid(cluster["id"])
        mtype = element.get("type")
        if mtype is None:
            return None
        meta = {}
        if mtype in PLAIN:
            meta["format"] = mtype
        elif mtype in SEMANTIC:
            fmt, unit, low, high = SEMANTIC[mtype]
            meta["format"] = fmt
            if unit: meta["unit"] = unit
            if low is not None: meta["min"] = low
            if high is not None: meta["max"] = high
        elif mtype.endswith("Enum"):
            meta["format"] = "enum"
            enum = self.enums(cluster).get(mtype)
            if enum:
                meta["validValues"] = [{"value": i["value"], "label": i["name"]} for i in enum["items"]
                                       if i.get("conformance") not in ("X", "D")]
        elif mtype.endswith("Bitmap"):
            meta["format"] = "bitmap"
        else:
            meta["format"] = "struct"
        constraint = element.get("constraint_parsed") or {}
        for src, dst in (("min", "min"), ("max", "max")):
            value = number(constraint.get(src))
            if value is not None and meta["format"] not in ("string", "struct", "list", "bool", "bitmap"):
                meta[dst] = value
        for src in ("minLength", "maxLength"):
            if isinstance(constraint.get(src), int) and meta["format"] == "string":
                meta[src] = constraint[src]
        note = element.get("unit_note") or ""
        if "unit" not in meta:
            for pattern, unit in NOTE_UNITS:
                if re.search(pattern, note):
                    meta["unit"] = unit
                    break
        meta.update(UNIT_OVERRIDES.get((cid, key), {}))
        if element.get("writable"): meta["writable"] = True
        if element.get("nullable"): meta["nullable"] = True
        default = element.get("default")
        parsed = self.default_value(default, meta)
        if parsed is not None:
            meta["default"] = parsed
        elif default not in (None, "MS", "desc", "empty", ""):
            self.dropped_defaults.append(f"{cluster['name']}.{key}={default!r}")
        return meta

    def default_value(self, default, meta):
        if default is None or default == "MS":
            return None
        if default == "null":
            return None if not meta.get("nullable") else "null"
        fmt = meta["format"]
        if fmt == "bool":
            return {"true": True, "false": False, True: True, False: False}.get(default)
        if fmt in ("struct", "list", "bitmap", "string"):
            return None
        value = number(default)
        if value is None:
            return None
        if ("min" in meta and value < meta["min"]) or ("max" in meta and value > meta["max"]):
            return None
        if "validValues" in meta and value not in [v["value"] for v in meta["validValues"]]:
            return None
        return value

    def trait(self, cid, name):
        cluster = self.by_id[cid]
        attributes = []
        for a in self.merged(cluster, "attributes"):
            if a.get("requirement") in ("deprecated", "disallowed") or a.get("conformance") in ("X", "D"):
                continue
            meta = self.metadata(cluster, a, a["name"])
            if meta is None:
                continue
            if meta.get("default") == "null":
                meta["default"] = None
            entry = {"name": camel(a["name"]), "id": a["id"]}
            entry.update(meta)
            entry["required"] = a.get("requirement") == "required"
            entry["conformance"] = a.get("conformance")
            attributes.append(entry)
        commands = []
        for c in self.merged(cluster, "commands"):
            if c.get("direction", "client->server") != "client->server":
                continue
            if c.get("requirement") in ("deprecated", "disallowed") or c.get("conformance") in ("X", "D"):
                continue
            fields = []
            for f in c.get("fields", []):
                if f.get("conformance") in ("X", "D"):
                    continue
                meta = self.metadata(cluster, f, f"{c['name']}.{f['name']}") or {"format": "struct"}
                meta.pop("writable", None)
                meta.pop("default", None)
                entry = {"name": camel(f["name"])}
                entry.update(meta)
                if f.get("conformance") != "M":
                    entry["optional"] = True
                fields.append(entry)
            commands.append({"name": camel(c["name"]), "id": c["id"], "required": c.get("requirement") == "required",
                             "conformance": c.get("conformance"), "fields": fields})
        features = [{"bit": f["bit"], "code": f["code"], "name": f["name"]} for f in cluster.get("features", [])
                    if f.get("conformance") not in ("X", "D")]
        return {
            "id": f"matter.{name}", "name": self.id_names[cid], "clusterId": f"0x{cid:04X}",
            "homeApisId": f"home.matter.0000.clusters.{cid:04x}",
            "spec": f"Matter {cluster.get('release', self.release)} {cluster['file']}",
            "features": features, "attributes": attributes, "commands": commands,
        }

    def device_type(self, dt, name):
        did = hexid(dt["id"])
        sc = dt["server_clusters"]
        required, optional = [], []
        for entry in sc.get("required", []):
            cid = hexid(entry["id"])
            if cid in INFRASTRUCTURE:
                continue
            if cid not in TRAIT_CLUSTERS:
                raise SystemExit(f"device type {dt['name']} requires cluster {entry['name']} not in TRAIT_CLUSTERS")
            required.append(f"matter.{TRAIT_CLUSTERS[cid]}")
        for group in ("optional", "conditional", "optional_if", "provisional"):
            for entry in sc.get(group, []):
                cid = hexid(entry["id"])
                if cid in TRAIT_CLUSTERS and f"matter.{TRAIT_CLUSTERS[cid]}" not in required + optional:
                    optional.append(f"matter.{TRAIT_CLUSTERS[cid]}")
        return {
            "id": f"matter.{name}", "name": dt["name"], "matterId": f"0x{did:04X}",
            "homeApisId": dt.get("google_home_type_id") or f"home.matter.0000.types.{did:04x}",
            "utility": dt.get("class") == "utility",
            "required": required, "optional": optional,
            "spec": f"Matter {self.release if self.release in (dt.get('present_in') or [self.release]) else '1.5'} "
                    f"{dt['file']}",
        }

    def select(self):
        """Every cluster but the infrastructure and a node's plumbing becomes a trait; every device
        type whose required clusters are all known becomes one (the others are said, with why)."""
        for cid in self.by_id:
            if cid not in INFRASTRUCTURE and cid not in NODE_PLUMBING and cid not in TRAIT_CLUSTERS:
                TRAIT_CLUSTERS[cid] = TRAIT_NAMES.get(cid) or pascal(self.id_names[cid])
        self.skipped = []
        for dt in self.device_types["device_types"]:
            did = hexid(dt.get("id"))
            if did is None or did in DEVICE_TYPES:
                continue
            if dt.get("class") == "node":
                self.skipped.append(f"{dt['name']}: a node's root, not a device")
                continue
            if "server_clusters" not in dt:
                self.skipped.append(f"{dt['name']}: only its id and name in the reference")
                continue
            required = [e for e in dt["server_clusters"].get("required", []) if hexid(e["id"]) not in INFRASTRUCTURE]
            plumbing = [e["name"] for e in required if hexid(e["id"]) in NODE_PLUMBING]
            unknown = [e["name"] for e in required if hexid(e["id"]) not in TRAIT_CLUSTERS | NODE_PLUMBING.keys()]
            if plumbing:
                self.skipped.append(f"{dt['name']}: its purpose is a node's plumbing ({', '.join(plumbing)})")
                continue
            if unknown:
                self.skipped.append(f"{dt['name']}: needs {', '.join(unknown)}, not in the reference's clusters")
                continue
            DEVICE_TYPES[did] = pascal(dt["name"])

    def run(self, out):
        self.select()
        traits = [self.trait(cid, name) for cid, name in sorted(TRAIT_CLUSTERS.items(), key=lambda kv: kv[1])]
        by_id = {hexid(d["id"]): d for d in self.device_types["device_types"] if d.get("id")}
        types = [self.device_type(by_id[did], name) for did, name in sorted(DEVICE_TYPES.items(), key=lambda kv: kv[1])]
        header = ("Generated by scripts/generate-catalog.py from ../shared/reference (Matter data model "
                  f"{self.release}) and scripts/matter-1.5-cameras.json, matter-1.5-closures.json (Matter 1.5's camera "
                  "and closure clusters). Do not edit "
                  "by hand: change the script's tables and run `make catalog`.")
        write(os.path.join(out, "traits.json"), {"$comment": header, "traits": traits})
        write(os.path.join(out, "device-types.json"), {"$comment": header, "deviceTypes": types})
        print(f"wrote {len(traits)} traits and {len(types)} device types to {out}")
        for reason in self.skipped:
            print(f"  left out device type {reason}")
        if self.dropped_defaults:
            print(f"left out {len(self.dropped_defaults)} defaults that are not plain values in range")


def write(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    if not os.path.isdir(REF):
        raise SystemExit(f"reference folder {REF} not found; pass it as the first argument")
    Generator(REF).run(OUT)
