"""A software Matter On/Off Light on loopback, for the tests and the demo: circuitmatter 0.4.1
(installed by scripts/install-matter-server.sh into the Matter Server's venv), mDNS through
python-zeroconf, a UDP port of our choosing. A real Matter Server commissions it with
`commission_on_network` (its passcode is printed) and then reads, subscribes and commands it.

Two things circuitmatter 0.4.1 does not do on its own, done here:
- its attestation chain (DAC → "CircuitMatter PAI" → "Matter Test PAA") ends in a root a Matter
  Server without network access does not have: this script makes a PAA of its own for the run,
  issues the same PAI (same subject and key) under it, and writes the PAA where the server reads
  its PAA roots (--paa-dir), which it does when it starts: start the server after READY;
- it sends a read's chunked ReportData with SuppressResponse set on every chunk, so the controller
  never asks for the next chunk and the interview after commissioning stalls: a chunk with more
  to come is sent with SuppressResponse false, the last as it was.

Usage: python matter-light.py --state FILE --control FILE --port PORT --paa-dir DIR
Write `on`, `off` or `toggle` into the control file to switch the light from the device side.
"""

import argparse
import datetime
import os
import socket
import sys
import time

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID, ObjectIdentifier
import zeroconf

import circuitmatter as cm
import circuitmatter.interaction_model as interaction_model
from circuitmatter import certificates
from circuitmatter.device_types.lighting import on_off
from circuitmatter.device_types.utility import root_node

VENDOR_ID_OID = ObjectIdentifier("1.3.6.1.4.1.37244.2.1")


def make_chain(paa_dir):
    """A PAA for this run, and circuitmatter's PAI (same subject, same key) issued by it."""
    os.makedirs(paa_dir, exist_ok=True)
    paa_key = ec.generate_private_key(ec.SECP256R1())
    # The verifier checks the chain at the DAC's notBefore (circuitmatter's is fixed, years back).
    now = datetime.datetime(2021, 1, 1, tzinfo=datetime.timezone.utc)
    forever = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc)
    paa_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "TraitBridge Test PAA")])
    paa_ski = x509.SubjectKeyIdentifier.from_public_key(paa_key.public_key())
    paa = (
        x509.CertificateBuilder()
        .subject_name(paa_name).issuer_name(paa_name)
        .public_key(paa_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now).not_valid_after(forever)
        .add_extension(x509.BasicConstraints(ca=True, path_length=1), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(paa_ski, critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(paa_ski), critical=False)
        .sign(paa_key, hashes.SHA256())
    )
    old_pai = x509.load_der_x509_certificate(root_node.PAI_CERT_DER)
    pai_key = serialization.load_der_private_key(certificates.PAI_KEY_DER, password=None)
    pai = (
        x509.CertificateBuilder()
        .subject_name(old_pai.subject).issuer_name(paa_name)
        .public_key(pai_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now).not_valid_after(forever)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(old_pai.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value, critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(paa_ski), critical=False)
        .sign(paa_key, hashes.SHA256())
    )
    with open(os.path.join(paa_dir, "traitbridge-test-paa.der"), "wb") as f:
        f.write(paa.public_bytes(serialization.Encoding.DER))
    # The server wipes a PAA folder without this marker, and fetches from the network when it is
    # older than a day: a fresh one keeps our root and keeps the server off the network.
    with open(os.path.join(paa_dir, ".version"), "w") as f:
        f.write("1")
    return pai.public_bytes(serialization.Encoding.DER)


def fix_chunked_reports():
    encode = interaction_model.ChunkedMessage.encode_into

    def encode_into(self, buffer, offset=0):
        if not hasattr(type(self), "SuppressResponse"):
            return encode(self, buffer, offset)
        if not hasattr(self, "_wanted_suppress"):
            self._wanted_suppress = bool(self.SuppressResponse)
        # Encode once into scratch space to learn whether more chunks follow this one.
        saved = {key: (list(value) if isinstance(value, list) else value) for key, value in self.values.items()}
        encode(self, memoryview(bytearray(len(buffer))), offset)
        more = bool(getattr(self, "MoreChunkedMessages", False))
        self.values.clear()
        self.values.update(saved)
        self.SuppressResponse = self._wanted_suppress and not more
        return encode(self, buffer, offset)

    interaction_model.ChunkedMessage.encode_into = encode_into


class Advertiser:
    """circuitmatter's mDNS interface, on python-zeroconf, announcing loopback addresses."""

    def __init__(self, port):
        self.port = port
        self.zc = zeroconf.Zeroconf(interfaces=["127.0.0.1"], ip_version=zeroconf.IPVersion.V4Only)

    def advertise_service(self, service_type, protocol, port, txt_records={}, subtypes=[], instance_name=""):
        kind = f"{service_type}.{protocol}.local."
        info = zeroconf.ServiceInfo(
            kind, f"{instance_name}.{kind}", port=self.port, properties=dict(txt_records),
            server="traitbridge-matter-light.local.", parsed_addresses=["127.0.0.1"])
        self.zc.register_service(info, allow_name_change=True)


class Sockets:
    """circuitmatter binds a fixed port; this binds the one given instead."""

    AF_INET6 = socket.AF_INET6
    SOCK_DGRAM = socket.SOCK_DGRAM

    def __init__(self, port):
        self.port = port

    def socket(self, *arguments):
        inner = socket.socket(*arguments)
        port = self.port

        class Bound:
            def __getattr__(self, name):
                return getattr(inner, name)

            def bind(self, address):
                return inner.bind((address[0], port))

        return Bound()


class Light(on_off.OnOffLight):
    def __init__(self, name):
        super().__init__(name)
        # circuitmatter 0.4.1 does not wire Toggle.
        self._on_off.toggle = lambda session: (self._off if self._on_off.OnOff else self._on)(session)

    def on(self):
        print("LIGHT on", flush=True)

    def off(self):
        print("LIGHT off", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", required=True)
    parser.add_argument("--control", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--paa-dir", required=True)
    parser.add_argument("--seconds", type=float, default=3600, help="stop after this long (bounded)")
    options = parser.parse_args()
    root_node.PAI_CERT_DER = make_chain(options.paa_dir)
    fix_chunked_reports()
    matter = cm.CircuitMatter(
        socketpool=Sockets(options.port), mdns_server=Advertiser(options.port), state_filename=options.state)
    light = Light("light1")
    matter.add_device(light)
    print("PASSCODE", matter.nonvolatile["passcode"], "DISCRIMINATOR", matter.nonvolatile["discriminator"], flush=True)
    print("READY", flush=True)
    deadline = time.monotonic() + options.seconds
    while time.monotonic() < deadline:
        matter.process_packets()
        if os.path.exists(options.control):
            with open(options.control) as f:
                command = f.read().strip()
            os.unlink(options.control)
            print("CONTROL", command, flush=True)
            if command in ("on", "off"):
                light._on_off.OnOff = command == "on"
            elif command == "toggle":
                light._on_off.OnOff = not light._on_off.OnOff
        time.sleep(0.01)


if __name__ == "__main__":
    sys.exit(main())
