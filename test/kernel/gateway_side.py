"""The Enterprise Gateway side of `tsgpu launch`, written as EG writes it
(enterprise_gateway/services/processproxies/processproxy.py), with the
library EG uses (pycryptodome, Debian's python3-pycryptodome):

- ResponseListener: an RSA key pair (1024 bits, like EG's ResponseManager),
  the public key in EG's form (PEM without header, footer and newlines), a
  socket on loopback, and the version-1 payload decrypted exactly as EG does;
- comm_request: one request to the launcher's comm port, sent as EG's
  _send_listener_request sends it;
- launcher_argv / connect: the launcher's command line and a jupyter_client
  BlockingKernelClient on the ports it reported.
"""

import base64
import json
import os
import shutil
import socket
from pathlib import Path

from Cryptodome.Cipher import AES, PKCS1_v1_5
from Cryptodome.PublicKey import RSA
from Cryptodome.Util.Padding import unpad

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "dist" / "kernel" / "cli.js"
NODE = os.environ.get("NODE") or shutil.which("node") or "node"

# What the launcher must report, no more and no less.
CONNECTION_KEYS = {"shell_port", "iopub_port", "stdin_port", "control_port", "hb_port", "ip", "key", "transport",
                   "signature_scheme", "kernel_name", "comm_port", "pid", "pgid", "kernel_id"}
KERNEL_PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


def kernel_env(scratch):
    """Environment for kernels a test starts: the run's own history and code cache when the test runner gave
    them (npm test does), else files under `scratch`, never the user's."""
    return {"TSGPU_HISTORY_FILE": os.environ.get("TSGPU_HISTORY_FILE") or os.path.join(scratch, "history.jsonl"),
            "TSGPU_CACHE_DIR": os.environ.get("TSGPU_CACHE_DIR") or os.path.join(scratch, "cache")}


def launcher_argv(*args):
    """The command line of `tsgpu launch` for this checkout."""
    if not CLI.is_file():
        raise RuntimeError(f"expected a built kernel at {CLI}; run `npm run build` first")
    return [NODE, "--expose-gc", str(CLI), "launch", *args]


class ResponseListener:
    """EG's response socket and key pair, for one launch."""

    def __init__(self, bits=1024):
        self.private_key = RSA.generate(bits)
        pem = self.private_key.publickey().export_key("PEM").decode()
        self.public_key = (pem.replace("-----BEGIN PUBLIC KEY-----", "")
                           .replace("-----END PUBLIC KEY-----", "").replace("\n", ""))
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.payload = None

    def receive(self, timeout=30):
        """Accepts one connection, reads until the launcher closes it, and returns the decrypted connection info."""
        self.sock.settimeout(timeout)
        conn, _ = self.sock.accept()
        data = ""
        with conn:
            conn.settimeout(timeout)
            while True:
                buffer = conn.recv(1024)
                if not buffer:
                    break
                data += buffer.decode("utf-8")
        return self.decode(data)

    def decode(self, data):
        """EG's ResponseManager._decode_payload for a version-1 payload."""
        payload_str = base64.b64decode(data)
        self.payload = json.loads(payload_str)
        if self.payload.get("version") != 1:
            raise ValueError(f"Unexpected version indicator received: {self.payload.get('version')}!")
        encrypted_aes_key = base64.b64decode(self.payload["key"].encode())
        aes_key = PKCS1_v1_5.new(self.private_key).decrypt(encrypted_aes_key, b"\x42")
        cipher = AES.new(aes_key, AES.MODE_ECB)
        encrypted_connection_info = base64.b64decode(self.payload["conn_info"].encode())
        return json.loads(unpad(cipher.decrypt(encrypted_connection_info), 16).decode())

    def close(self):
        self.sock.close()


def comm_request(port, request, shutdown_socket=False, timeout=5.0):
    """Sends one request to the comm port as EG does (connect, send the JSON, close); raises OSError if refused."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(("127.0.0.1", port))
        sock.send(json.dumps(request).encode(encoding="utf-8"))
    finally:
        if shutdown_socket:
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        sock.close()


def connect(info, ip="127.0.0.1"):
    """A started BlockingKernelClient on the reported ports (EG replaces the ip with the kernel host's)."""
    from jupyter_client import BlockingKernelClient
    kc = BlockingKernelClient()
    kc.load_connection_info({**{k: v for k, v in info.items() if k in KERNEL_PORTS or k in (
        "key", "transport", "signature_scheme")}, "ip": ip})
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return kc


def run_cell(kc, code, timeout=60):
    """Executes code; returns (reply content, text of its stdout and results; not stderr's warnings)."""
    out = []

    def hook(msg):
        c = msg["content"]
        if msg["msg_type"] == "stream" and c["name"] == "stdout":
            out.append(c["text"])
        elif msg["msg_type"] in ("execute_result", "display_data"):
            out.append(c["data"].get("text/plain", ""))
    reply = kc.execute_interactive(code, timeout=timeout, output_hook=hook)
    return reply["content"], "".join(out)
