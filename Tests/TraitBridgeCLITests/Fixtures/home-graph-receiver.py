#!/usr/bin/env python3
"""A local Home Graph for the tests: a token endpoint and the two Home Graph methods.

  home-graph-receiver.py PORT PUBLIC_KEY_PEM CLIENT_EMAIL EVENTS_FILE

POST /token checks the bridge's JWT (RS256, with `openssl dgst -verify` and the public half of the
test's throw-away key; iss, aud and scope claims) and answers an access token only when it holds.
POST /v1/devices:reportStateAndNotification and /v1/devices:requestSync need that token and record
what they receive. Every event is one JSON line in EVENTS_FILE: {path, time (epoch s), body|valid}.
Listens on 127.0.0.1 only; a separate process, so the test's own threads cannot starve it.
"""
import base64, json, os, subprocess, sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

PORT, PUBLIC_KEY, EMAIL, EVENTS = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
TOKEN_URI = f"http://127.0.0.1:{PORT}/token"
lock = threading.Lock()


def record(event):
    event["time"] = time.time()
    with lock, open(EVENTS, "a") as f:
        f.write(json.dumps(event) + "\n")


def unbase64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify(assertion):
    try:
        header, claims, signature = assertion.split(".")
        with tempfile.TemporaryDirectory() as work:
            data, sig = os.path.join(work, "data"), os.path.join(work, "sig")
            open(data, "wb").write(f"{header}.{claims}".encode())
            open(sig, "wb").write(unbase64(signature))
            signed = subprocess.run(["openssl", "dgst", "-sha256", "-verify", PUBLIC_KEY, "-signature", sig, data],
                                    capture_output=True).returncode == 0
        body = json.loads(unbase64(claims))
        return (signed and json.loads(unbase64(header)).get("alg") == "RS256" and body.get("iss") == EMAIL
                and body.get("aud") == TOKEN_URI and body.get("scope") == "https://www.googleapis.com/auth/homegraph")
    except Exception:
        return False


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = min(int(self.headers.get("Content-Length", "0")), 1 << 20)
        raw = self.rfile.read(length)
        if self.path == "/token":
            form = parse_qs(raw.decode())
            valid = form.get("grant_type") == ["urn:ietf:params:oauth:grant-type:jwt-bearer"] and verify(
                form.get("assertion", [""])[0])
            record({"path": self.path, "valid": valid})
            if valid:
                self.answer(200, {"access_token": "hg-access", "expires_in": 3600, "token_type": "Bearer"})
            else:
                self.answer(400, {"error": "invalid_grant"})
        elif self.path.startswith("/v1/devices:"):
            if self.headers.get("Authorization") != "Bearer hg-access":
                self.answer(401, {"error": {"code": 401}})
                return
            record({"path": self.path, "body": json.loads(raw)})
            self.answer(200, {"requestId": "x"})
        else:
            self.answer(404, {})

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
