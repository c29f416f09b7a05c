#!/usr/bin/env python3
"""A partner cloud that misbehaves, for the cloud-link tests.

  hostile-partner.py PORT DEVICES

POST /<mode> answers Google's intents badly, one way per mode:
  huge     a SYNC answer of 17 MB         slow     no answer for 5 s
  garbage  not JSON                       shape    {"payload": {"devices": {}}} (devices not a list)
  denied   HTTP 401                       error    {"payload": {"errorCode": "authFailure"}}
  many     a good SYNC of DEVICES lights, and a good QUERY of whatever is asked
  sour     a good SYNC of one light, then QUERY answers that are not JSON
Listens on 127.0.0.1 only.
"""
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, DEVICES = int(sys.argv[1]), int(sys.argv[2])


def light(mode, i):
    return {"id": f"{mode}-light-{i}", "type": "action.devices.types.LIGHT",
            "traits": ["action.devices.traits.OnOff"], "name": {"name": f"Partner light {i}"},
            "willReportState": False}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        intent = request["inputs"][0]["intent"]
        mode = self.path.strip("/")
        rid = request.get("requestId", "")
        if mode == "huge":
            return self.answer(200, b'{"payload":{"devices":[' + b" " * (17 << 20) + b"]}}")
        if mode == "slow":
            time.sleep(5)
            return self.answer(200, {"requestId": rid, "payload": {"devices": []}})
        if mode == "garbage":
            return self.answer(200, b"<html>gateway says hello</html>")
        if mode == "shape":
            return self.answer(200, {"requestId": rid, "payload": {"devices": {}}})
        if mode == "denied":
            return self.answer(401, {"error": "invalid_token"})
        if mode == "error":
            return self.answer(200, {"requestId": rid, "payload": {"errorCode": "authFailure"}})
        count = DEVICES if mode == "many" else 1
        if intent == "action.devices.SYNC":
            return self.answer(200, {"requestId": rid, "payload": {
                "agentUserId": "partner", "devices": [light(mode, i) for i in range(count)]}})
        if intent == "action.devices.QUERY":
            if mode == "sour":
                return self.answer(200, b"not json at all")
            ids = [d["id"] for d in request["inputs"][0]["payload"]["devices"]]
            return self.answer(200, {"requestId": rid, "payload": {"devices": {
                i: {"online": True, "status": "SUCCESS", "on": True} for i in ids}}})
        return self.answer(200, {"requestId": rid, "payload": {"commands": []}})


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
