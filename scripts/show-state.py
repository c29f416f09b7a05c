#!/usr/bin/env python3
"""Prints one traitbridge/devices/<id>/state payload (read from stdin) for people: used by demo.sh."""
import json
import sys

state = json.load(sys.stdin)
print("  %s: %s/%s" % (state["name"], state["connectivityState"], state["dataSourceLocality"]))
for key, device_type in state["types"].items():
    for trait_id, trait in device_type["traits"].items():
        if trait["attributes"]:
            print("    %s/%s %s  [%s: %s]" % (key, trait_id, json.dumps(trait["attributes"]),
                                           trait["connectivityState"], trait.get("reason", "")))
