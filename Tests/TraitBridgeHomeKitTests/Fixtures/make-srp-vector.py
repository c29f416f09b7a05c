#!/usr/bin/env python3
"""Writes srp-vector.json: one pair-setup SRP exchange computed by aiohomekit's own SRP (the
controller's side, and its accessory side for B), with fixed salt and private values, for the
Swift accessory to be checked against. Run with .build-homekit/venv/bin/python."""
import json
from aiohomekit.crypto.srp import SrpClient, SrpServer, pad_left, to_byte_array, HK_KEY_LENGTH

code = "031-45-154"
salt = bytes(range(1, 17))
b = bytes(range(0x20, 0x40))
a = bytes(range(0x40, 0x60))

server = SrpServer("Pair-Setup", code)
server.salt_b = salt
server.salt = int.from_bytes(salt, "big")
server.verifier = server._get_verifier()
server.b = int.from_bytes(b, "big")
B = server.get_public_key_bytes()

client = SrpClient("Pair-Setup", code)
client.a = int.from_bytes(a, "big")
client.A = pow(client.g, client.a, client.n)
client.A_b = pad_left(to_byte_array(client.A), HK_KEY_LENGTH)
client.set_salt(bytearray(salt))
client.set_server_public_key(B)
M1 = client.get_proof_bytes()
K = client.get_session_key_bytes()
server.B_b = B
server.set_client_public_key(client.A_b)
assert server.verify_clients_proof_bytes(M1)
M2 = server.get_proof_bytes(M1)
assert client.verify_servers_proof_bytes(M2)
print(json.dumps({"code": code, "salt": salt.hex(), "b": b.hex(), "B": B.hex(), "A": bytes(client.A_b).hex(),
                  "M1": M1.hex(), "K": K.hex(), "M2": M2.hex()}, indent=1))
