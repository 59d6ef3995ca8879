"""Drives a real Jupyter Enterprise Gateway from its source, as a client of
its REST API and kernel websocket, for test_gateway_eg.py and
bench/gateway_bench.py.

EG runs on Debian's Python packages (jupyter-server 1.x, tornado, pyzmq,
paramiko, pycryptodome, watchdog, docker, kubernetes) with its own source and
jupyter_client 6.1.12's first on PYTHONPATH, bound to loopback only; its
response address is 127.0.0.1. Two environment variables name the
checkouts:

    TSGPU_EG_SOURCE              jupyter-server/enterprise_gateway
    TSGPU_JUPYTER_CLIENT_SOURCE  jupyter/jupyter_client at tag v6.1.12

Over ssh, it starts Debian's sshd on 127.0.0.2 with a fresh host key and
client key (SshHost), and gives EG a HOME whose .ssh holds that client key
and the host's key.
"""

import asyncio
import datetime
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from gateway_side import CLI, NODE, kernel_env

PY = "/usr/bin/python3"
ENV_EG = "TSGPU_EG_SOURCE"
ENV_JC = "TSGPU_JUPYTER_CLIENT_SOURCE"
# What EG imports from Debian's packages.
EG_MODULES = ["jupyter_server", "tornado", "zmq", "paramiko", "Cryptodome", "watchdog", "docker", "kubernetes",
              "pexpect", "jinja2", "requests", "yaml", "future", "ipykernel"]
DEBIAN_PACKAGES = ["jupyter-server", "python3-paramiko", "python3-pycryptodome", "python3-watchdog", "python3-docker",
                   "python3-kubernetes", "python3-pexpect", "python3-jinja2", "python3-future", "python3-ipykernel",
                   "openssh-server"]


def sources():
    """(EG checkout, jupyter_client checkout), or a reason why the real-EG tests cannot run."""
    eg, jc = os.environ.get(ENV_EG), os.environ.get(ENV_JC)
    if not eg or not jc:
        return None, (f"set {ENV_EG} to a checkout of jupyter-server/enterprise_gateway and {ENV_JC} to one of "
                      f"jupyter/jupyter_client at v6.1.12 to run the tests against the real Enterprise Gateway")
    for name, path, marker in ((ENV_EG, eg, "enterprise_gateway/enterprisegatewayapp.py"),
                               (ENV_JC, jc, "jupyter_client/manager.py")):
        if not (Path(path) / marker).is_file():
            raise RuntimeError(f"expected a checkout with {marker} for ${name}, got {path}")
    return (Path(eg), Path(jc)), None


def python_path(eg, jc):
    return os.pathsep.join([str(eg), str(jc)])


def check_modules(eg, jc):
    """Raises naming what is missing when EG cannot be imported on Debian's packages."""
    code = ("import importlib, jupyter_client; "
            f"[importlib.import_module(m) for m in {EG_MODULES!r}]; "
            "import enterprise_gateway.enterprisegatewayapp; print(jupyter_client.__version__)")
    r = subprocess.run([PY, "-c", code], env={**os.environ, "PYTHONPATH": python_path(eg, jc)},
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"Enterprise Gateway cannot be imported ({r.stderr.strip().splitlines()[-1]}); "
                           f"install Debian's {' '.join(DEBIAN_PACKAGES)}")
    if not r.stdout.strip().startswith("6.1."):
        raise RuntimeError(f"expected jupyter_client 6.1.x from ${ENV_JC}, got {r.stdout.strip()}")
    return r.stdout.strip()


def free_port(host="127.0.0.1"):
    s = socket.socket()
    s.bind((host, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def running_processes():
    """(pid, argv, parent pid) of every process that runs (an exited one not yet reaped does not)."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            argv = (d / "cmdline").read_bytes().split(b"\0")
            state, ppid = (d / "stat").read_text().rsplit(") ", 1)[1].split(" ")[:2]
        except OSError:
            continue
        if state != "Z":
            yield int(d.name), argv, int(ppid)


def kernel_processes(kernel_id):
    """Pids of the processes whose command line holds the kernel id (a launched kernel's does)."""
    return [pid for pid, argv, _ in running_processes() if kernel_id.encode() in argv and pid != os.getpid()]


def checker_processes(kernel_pid=None):
    """Pids of the type checker processes (started from the checker's startup snapshot) that run: the children
    of kernel_pid, or all of them. One that was orphaned (its kernel killed) counts with kernel_pid None."""
    return [pid for pid, argv, ppid in running_processes()
            if b"--snapshot-blob" in argv and (kernel_pid is None or ppid == kernel_pid)]


class SshHost:
    """Debian's sshd on 127.0.0.2 for the test, with its own host key; EG logs in as this user with a test key."""

    def __init__(self, home):
        self.dir = Path(tempfile.mkdtemp(prefix="tsgpu-sshd-"))
        self.port = free_port("127.0.0.2")
        for name in ("host_key", "client_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.dir / name)], check=True)
        (self.dir / "authorized_keys").write_text((self.dir / "client_key.pub").read_text())
        config = self.dir / "sshd_config"
        config.write_text("\n".join([
            f"Port {self.port}", "ListenAddress 127.0.0.2", f"HostKey {self.dir / 'host_key'}",
            f"AuthorizedKeysFile {self.dir / 'authorized_keys'}", "StrictModes no", "PasswordAuthentication no",
            "KbdInteractiveAuthentication no", "UsePAM no", "PermitRootLogin prohibit-password",
            f"PidFile {self.dir / 'sshd.pid'}", ""]))
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation folder
        self.proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(config)],
                                     stdout=subprocess.DEVNULL, stderr=open(self.dir / "sshd.log", "w"))
        ssh = Path(home) / ".ssh"
        ssh.mkdir(mode=0o700, parents=True, exist_ok=True)
        shutil.copy(self.dir / "client_key", ssh / "id_ed25519")
        os.chmod(ssh / "id_ed25519", 0o600)
        host_pub = (self.dir / "host_key.pub").read_text().split()
        (ssh / "known_hosts").write_text(f"[127.0.0.2]:{self.port} {host_pub[0]} {host_pub[1]}\n")
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.2", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        raise RuntimeError(f"sshd did not start on 127.0.0.2:{self.port}: {(self.dir / 'sshd.log').read_text()}")

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Gateway:
    """Enterprise Gateway on 127.0.0.1, with kernelspecs from `specs` (name -> kernel.json dict) and more
    environment variables for it in `env` (EG_POLL_INTERVAL…)."""

    def __init__(self, eg, jc, specs, ssh_port=None, home=None, env=None):
        self.dir = Path(tempfile.mkdtemp(prefix="tsgpu-eg-"))
        self.home = Path(home or self.dir / "home")
        self.home.mkdir(exist_ok=True)
        kernels = self.dir / "share" / "jupyter" / "kernels"
        for name, spec in specs.items():
            (kernels / name).mkdir(parents=True)
            # EG passes a kernelspec's env over ssh too: the kernels keep off the user's history and code cache.
            spec = {**spec, "env": {**spec.get("env", {}), **kernel_env(str(self.dir))}}
            (kernels / name / "kernel.json").write_text(json.dumps(spec, indent=1))
        # tsgpu installed on the host: `tsgpu install` builds the type checker's snapshot in the kernels' cache.
        install_snapshot(kernel_env(str(self.dir))["TSGPU_CACHE_DIR"])
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env_extra = env or {}
        env = {**os.environ, "PYTHONPATH": python_path(eg, jc), "JUPYTER_PATH": str(self.dir / "share" / "jupyter"),
               "JUPYTER_RUNTIME_DIR": str(self.dir / "runtime"), "JUPYTER_DATA_DIR": str(self.dir / "data"),
               "HOME": str(self.home), "EG_RESPONSE_IP": "127.0.0.1", "EG_RESPONSE_PORT": str(free_port()),
               "EG_KERNEL_LOG_DIR": str(self.dir), "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
        if ssh_port:
            env["EG_SSH_PORT"] = str(ssh_port)
        env.update(env_extra)
        self.log_path = self.dir / "eg.log"
        self.proc = subprocess.Popen(
            [PY, "-Xfrozen_modules=off", "-m", "enterprise_gateway", "--ip=127.0.0.1", f"--port={self.port}",
             "--port_retries=0", "--EnterpriseGatewayApp.remote_hosts=localhost",
             "--RemoteMappingKernelManager.cull_idle_timeout=0", "--log-level=DEBUG"],
            cwd=self.dir, env=env, stdout=subprocess.DEVNULL, stderr=open(self.log_path, "w"))
        self.wait_up()

    def wait_up(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Enterprise Gateway exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                asyncio.run(self.request("GET", "/api/kernelspecs"))
                return
            except (ConnectionError, OSError):
                time.sleep(0.2)
        raise RuntimeError(f"Enterprise Gateway did not answer on {self.url} in {timeout} s: {self.log_tail()}")

    def log_tail(self, n=40):
        try:
            return "\n".join(self.log_path.read_text().splitlines()[-n:])
        except OSError:
            return ""

    async def request(self, method, path, body=None, timeout=120):
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        req = HTTPRequest(self.url + path, method=method, body=None if body is None else json.dumps(body),
                          request_timeout=timeout, allow_nonstandard_methods=True)
        resp = await AsyncHTTPClient().fetch(req, raise_error=False)
        if resp.code >= 400 or resp.code == 599:
            if resp.code == 599:
                raise ConnectionError(str(resp.error))
            raise RuntimeError(f"{method} {path}: HTTP {resp.code}: {resp.body.decode(errors='replace')[:500]}")
        return json.loads(resp.body) if resp.body else None

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Channels:
    """A kernel's websocket (/api/kernels/ID/channels), speaking the JSON message protocol."""

    def __init__(self, ws):
        self.ws = ws
        self.session = uuid.uuid4().hex

    @classmethod
    async def open(cls, gw, kernel_id):
        from tornado.websocket import websocket_connect
        return cls(await websocket_connect(f"ws://127.0.0.1:{gw.port}/api/kernels/{kernel_id}/channels"))

    def send(self, channel, msg_type, content):
        msg_id = uuid.uuid4().hex
        self.ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": msg_type, "username": "test", "session": self.session,
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "version": "5.3"},
            "parent_header": {}, "metadata": {}, "content": content, "channel": channel, "buffers": []}))
        return msg_id

    async def recv(self, timeout):
        raw = await asyncio.wait_for(self.ws.read_message(), timeout)
        if raw is None:
            raise ConnectionError("the kernel websocket closed")
        return json.loads(raw)

    async def execute(self, code, timeout=60, times=None):
        """Runs a cell; returns (execute_reply content, its stdout; type-check warnings go to stderr). With a dict
        `times`, the perf_counter() of the reply's and of the idle status's arrival go in it ("reply", "idle")."""
        msg_id = self.send("shell", "execute_request", {"code": code, "silent": False, "store_history": True,
                                                        "user_expressions": {}, "allow_stdin": False})
        out, reply, idle = [], None, False
        deadline = time.time() + timeout
        while reply is None or not idle:
            m = await self.recv(max(0.1, deadline - time.time()))
            if m.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            t = m["header"]["msg_type"]
            if t == "stream" and m["content"]["name"] == "stdout":
                out.append(m["content"]["text"])
            elif t == "execute_reply":
                reply = m["content"]
                if times is not None:
                    times["reply"] = time.perf_counter()
            elif t == "status" and m["content"]["execution_state"] == "idle":
                idle = True
                if times is not None:
                    times["idle"] = time.perf_counter()
        return reply, "".join(out)

    async def status_until(self, states, timeout):
        """Waits for an iopub status whose execution_state is one of states; returns it."""
        deadline = time.time() + timeout
        while True:
            m = await self.recv(max(0.1, deadline - time.time()))
            if m["header"]["msg_type"] == "status" and m["content"]["execution_state"] in states:
                return m["content"]["execution_state"]

    def close(self):
        self.ws.close()


def install_snapshot(cache_dir):
    """Runs `tsgpu install` (into a throw-away prefix) for its other work: the type checker's startup snapshot,
    built in cache_dir unless there already."""
    d = tempfile.mkdtemp(prefix="tsgpu-spec-")
    try:
        subprocess.run([NODE, str(CLI), "install", "--prefix", d], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "TSGPU_CACHE_DIR": cache_dir})
    finally:
        shutil.rmtree(d, ignore_errors=True)


def tsgpu_spec(mode_args, display):
    """The distributed kernelspec that `tsgpu install --gateway distributed` writes, read back (the checker's
    snapshot is built where the kernels' cache is: see Gateway)."""
    d = Path(tempfile.mkdtemp(prefix="tsgpu-spec-"))
    try:
        subprocess.run([NODE, str(CLI), "install", "--prefix", str(d), "--gateway", "distributed",
                        "--display-name", display, *mode_args], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "TSGPU_CHECKER_SNAPSHOT": "0"})
        return json.loads((d / "share" / "jupyter" / "kernels" / "tsgpu_distributed" / "kernel.json").read_text())
    finally:
        shutil.rmtree(d, ignore_errors=True)


def ipykernel_spec(eg, remote_hosts="localhost"):
    """EG's own python_distributed kernelspec, its launcher taken from the EG checkout."""
    spec = json.loads((eg / "etc" / "kernelspecs" / "python_distributed" / "kernel.json").read_text())
    spec["argv"][1] = str(eg / "etc" / "kernel-launchers" / "python" / "scripts" / "launch_ipykernel.py")
    spec["metadata"]["process_proxy"]["config"] = {"remote_hosts": remote_hosts}
    return spec


async def create_kernel(gw, name):
    """POST /api/kernels for kernelspec name; returns the kernel id. EG refuses kernels for root: a user is named."""
    return (await gw.request("POST", "/api/kernels", {"name": name, "env": {"KERNEL_USERNAME": "tsgpu-test"}}))["id"]


async def time_to_first_cell(gw, name, code):
    """Seconds from POST /api/kernels to its answer, to the first cell's execute_reply and to the kernel's idle
    status after it, and the kernel id."""
    t0 = time.perf_counter()
    kid = await create_kernel(gw, name)
    created = time.perf_counter() - t0
    ch = await Channels.open(gw, kid)
    times = {}
    try:
        reply, _ = await ch.execute(code, times=times)
        if reply["status"] != "ok":
            raise RuntimeError(f"first cell on {name}: {reply}")
    finally:
        ch.close()
    return {"post_s": created, "first_cell_s": times["reply"] - t0, "idle_s": times["idle"] - t0}, kid
