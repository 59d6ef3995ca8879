"""`tsgpu launch` against Enterprise Gateway's side of the launcher contract
(gateway_side.py: EG's decryption and comm port requests, with pycryptodome),
then jupyter_client on the ports the launcher reported.

    /usr/bin/python3 -m unittest discover -s test/kernel -p "test_gateway_launch.py" -v
"""

import glob
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
import uuid

from eg_driver import checker_processes
from gateway_side import (CLI, CONNECTION_KEYS, KERNEL_PORTS, NODE, ResponseListener, comm_request, connect, kernel_env,
                          launcher_argv, run_cell)


def free_range(width=1000):
    """LO..HI of width ports, mostly free, away from the ephemeral range."""
    lo = random.randrange(20000, 30000 - width)
    return lo, lo + width


class Launched:
    """One `tsgpu launch` with its response listener; ends the process when done."""

    def __init__(self, testcase, args=None, env=None, listener=None, command=None):
        self.listener = listener or ResponseListener()
        self.kernel_id = str(uuid.uuid4())
        args = args if args is not None else [
            "--kernel-id", self.kernel_id, "--response-address", self.listener.address,
            "--public-key", self.listener.public_key]
        argv = [*command, *args] if command else launcher_argv(*args)
        self.scratch = tempfile.mkdtemp(prefix="tsgpu-launch-")
        self.proc = subprocess.Popen(argv, env={**os.environ, **kernel_env(self.scratch), **(env or {})},
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.kc = None
        testcase.addCleanup(self.close)

    def receive(self):
        self.info = self.listener.receive()
        return self.info

    def connect(self):
        self.kc = connect(self.info)
        return self.kc

    def wait(self, timeout=15):
        return self.proc.wait(timeout=timeout)

    def close(self):
        if self.kc:
            self.kc.stop_channels()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc.stderr.close()
        self.listener.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def refused(port):
    """Whether nothing listens on the loopback port."""
    try:
        comm_request(port, {"signum": 0}, timeout=1)
        return False
    except ConnectionRefusedError:
        return True


class LaunchTests(unittest.TestCase):

    def test_connection_info_decrypts_as_eg_and_a_cell_runs(self):
        lo, hi = free_range()
        listener = ResponseListener()
        kid = str(uuid.uuid4())
        # EG's older option spellings, and an option meant for Spark, as EG's python_distributed kernelspec passes them.
        k = Launched(self, args=[
            "--RemoteProcessProxy.kernel-id", kid, "--RemoteProcessProxy.response-address", listener.address,
            "--RemoteProcessProxy.public-key", listener.public_key, "--RemoteProcessProxy.port-range", f"{lo}..{hi}",
            "--RemoteProcessProxy.spark-context-initialization-mode", "none"], listener=listener)
        info = k.receive()
        self.assertEqual(set(listener.payload), {"version", "key", "conn_info"})
        self.assertEqual(set(info), CONNECTION_KEYS)
        self.assertEqual(info["kernel_id"], kid)
        self.assertEqual((info["transport"], info["signature_scheme"], info["ip"]), ("tcp", "hmac-sha256", "0.0.0.0"))
        self.assertEqual(str(uuid.UUID(info["key"])), info["key"])
        ports = [info[p] for p in KERNEL_PORTS] + [info["comm_port"]]
        self.assertEqual(len(set(ports)), 6, ports)
        for p in ports:
            self.assertTrue(lo <= p <= hi, f"port {p} outside {lo}..{hi}")
        self.assertEqual(info["pid"], k.proc.pid)
        self.assertEqual(info["pgid"], os.getpgid(k.proc.pid))
        kc = k.connect()
        reply, out = run_cell(kc, "const answer: number = 6 * 7; console.log(`answer ${answer}`)")
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(out, "answer 42\n")
        # A fresh key for each kernel.
        other = Launched(self)
        self.assertNotEqual(other.receive()["key"], info["key"])

    def test_pod_environment(self):
        """In a Kubernetes pod the launcher reads KERNEL_ID, RESPONSE_ADDRESS, PUBLIC_KEY and PORT_RANGE."""
        lo, hi = free_range()
        listener = ResponseListener()
        kid = str(uuid.uuid4())
        k = Launched(self, args=[], listener=listener, env={
            "KERNEL_ID": kid, "RESPONSE_ADDRESS": listener.address, "PUBLIC_KEY": listener.public_key,
            "PORT_RANGE": f"{lo}..{hi}"})
        info = k.receive()
        self.assertEqual(info["kernel_id"], kid)
        self.assertTrue(all(lo <= info[p] <= hi for p in KERNEL_PORTS))
        reply, out = run_cell(k.connect(), "console.log(typeof torch)")
        self.assertEqual((reply["status"], out), ("ok", "object\n"))

    def test_comm_port_liveness_interrupt_and_sigterm(self):
        k = Launched(self)
        info = k.receive()
        kc = k.connect()
        comm = info["comm_port"]
        comm_request(comm, {"signum": 0})
        self.assertIsNone(k.proc.poll())
        self.assertEqual(run_cell(kc, "let kept = 7; kept")[0]["status"], "ok")
        # Interrupt a busy loop through the comm port: the cell ends with an error, the next runs, state is kept.
        # (stop_on_error off: the next cell is not one queued behind this one, whatever the timing.)
        msg_id = kc.execute("let spins = 0; while (true) { spins++; }", stop_on_error=False)
        time.sleep(1.0)
        t0 = time.perf_counter()
        comm_request(comm, {"signum": signal.SIGINT})
        reply = kc.get_shell_msg(timeout=20)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"]["status"], "error", reply["content"])
        self.assertLess(time.perf_counter() - t0, 10)
        reply, out = run_cell(kc, "console.log(kept * 6, spins > 0)")
        self.assertEqual((reply["status"], out), ("ok", "42 true\n"))
        comm_request(comm, {"signum": 0})
        # SIGTERM through the comm port: a clean shutdown, status 0; then nothing listens on the comm port.
        comm_request(comm, {"signum": signal.SIGTERM})
        self.assertEqual(k.wait(), 0)
        self.assertIn("SIGTERM: shutting down", k.proc.stderr.read())
        self.assertTrue(refused(comm))

    def test_sigterm_during_a_busy_cell(self):
        k = Launched(self)
        info = k.receive()
        kc = k.connect()
        kc.execute("while (true) {}")
        time.sleep(1.0)
        comm_request(info["comm_port"], {"signum": signal.SIGTERM})
        # The busy cell is stopped first, then the kernel shuts down: about 2 s on an idle machine, more than 15
        # under heavy load. The wait is for a hang, not a speed check.
        self.assertEqual(k.wait(timeout=60), 0)

    def test_sigkill(self):
        k = Launched(self)
        info = k.receive()
        comm_request(info["comm_port"], {"signum": signal.SIGKILL})
        self.assertEqual(k.wait(), -signal.SIGKILL)
        self.assertTrue(refused(info["comm_port"]))

    def test_shutdown_stops_the_listener_only(self):
        k = Launched(self)
        info = k.receive()
        kc = k.connect()
        comm_request(info["comm_port"], {"shutdown": 1}, shutdown_socket=True)
        deadline = time.time() + 10
        while not refused(info["comm_port"]) and time.time() < deadline:
            time.sleep(0.05)
        self.assertTrue(refused(info["comm_port"]))
        reply, out = run_cell(kc, "console.log('still here')")
        self.assertEqual((reply["status"], out), ("ok", "still here\n"))
        kc.shutdown()
        self.assertEqual(k.wait(), 0)


class BadInputTests(unittest.TestCase):
    """Each failure: one line on stderr, exit status 1, soon."""

    def launch_fails(self, args, env=None, timeout=30):
        r = subprocess.run(launcher_argv(*args), env={**os.environ, **(env or {})}, capture_output=True, text=True,
                           timeout=timeout)
        self.assertEqual(r.returncode, 1, r.stderr)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].startswith("tsgpu launch: "), lines[0])
        return lines[0]

    def args(self, listener, **over):
        a = {"--kernel-id": "k-bad", "--response-address": listener.address, "--public-key": listener.public_key}
        a.update(over)
        return [x for kv in a.items() for x in kv]

    def test_wrong_public_key(self):
        listener = ResponseListener()
        self.addCleanup(listener.close)
        line = self.launch_fails(self.args(listener, **{"--public-key": "not a key"}))
        self.assertIn('expected a base64 DER RSA public key for --public-key, got "not a key"', line)
        line = self.launch_fails(self.args(listener, **{"--public-key": listener.public_key[:-40]}))
        self.assertIn("expected a base64 DER RSA public key for --public-key", line)

    def test_unreachable_response_address(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there now
        listener = ResponseListener()
        self.addCleanup(listener.close)
        t0 = time.perf_counter()
        line = self.launch_fails(self.args(listener, **{"--response-address": f"127.0.0.1:{port}"}))
        self.assertIn(f"cannot send the connection info to the response address 127.0.0.1:{port}: ECONNREFUSED", line)
        self.assertLess(time.perf_counter() - t0, 20)
        line = self.launch_fails(self.args(listener, **{"--response-address": "localhost"}))
        self.assertIn('expected HOST:PORT for --response-address, got "localhost"', line)

    def test_no_free_port_in_the_range(self):
        held = []
        for _ in range(100):
            lo = random.randrange(20000, 30000)
            try:
                for p in (lo, lo + 1):
                    s = socket.socket()
                    s.bind(("0.0.0.0", p))
                    s.listen(1)
                    held.append(s)
                break
            except OSError:
                for s in held:
                    s.close()
                held = []
        self.addCleanup(lambda: [s.close() for s in held])
        listener = ResponseListener()
        self.addCleanup(listener.close)
        line = self.launch_fails(self.args(listener, **{"--port-range": f"{lo}..{lo + 1}"}),
                                 env={"EG_MIN_PORT_RANGE_SIZE": "1", "EG_MAX_PORT_RANGE_RETRIES": "5"})
        self.assertIn(f"no free port within the port range {lo}..{lo + 1} after 6 tries", line)

    def test_no_port_left_for_the_comm_port(self):
        """Five free ports: the launcher needs six distinct ones (the kernel's five and the comm port), taken
        at once: one line, exit status 1."""
        for _ in range(100):
            lo = random.randrange(20000, 30000)
            probes = []
            try:
                for p in range(lo, lo + 5):
                    s = socket.socket()
                    probes.append(s)
                    s.bind(("0.0.0.0", p))
                break
            except OSError:
                continue
            finally:
                for s in probes:
                    s.close()
        listener = ResponseListener()
        self.addCleanup(listener.close)
        line = self.launch_fails(self.args(listener, **{"--port-range": f"{lo}..{lo + 4}"}),
                                 env={"EG_MIN_PORT_RANGE_SIZE": "1", "EG_MAX_PORT_RANGE_RETRIES": "2"})
        self.assertIn(f"no free port within the port range {lo}..{lo + 4} after 3 tries", line)

    def test_missing_and_malformed_options(self):
        listener = ResponseListener()
        self.addCleanup(listener.close)
        env = {k: "" for k in ("KERNEL_ID", "RESPONSE_ADDRESS", "PUBLIC_KEY", "PORT_RANGE")}
        line = self.launch_fails(["--response-address", listener.address, "--public-key", listener.public_key], env=env)
        self.assertIn("expected a kernel id for --kernel-id (or $KERNEL_ID), got none", line)
        line = self.launch_fails(self.args(listener, **{"--kernel-id": "{kernel_id}"}))
        self.assertIn('got the unfilled placeholder "{kernel_id}"', line)
        line = self.launch_fails(self.args(listener, **{"--port-range": "40000..40010"}))
        self.assertIn("expected a port range of at least 1000 ports (EG_MIN_PORT_RANGE_SIZE)", line)
        self.assertTrue(re.search(r'got "40000\.\.40010" \(10\)', line), line)


def stderr_of_cell(kc, code, timeout=60):
    """Executes code; returns (reply content, its stderr text: the type warnings)."""
    err = []

    def hook(msg):
        if msg["msg_type"] == "stream" and msg["content"]["name"] == "stderr":
            err.append(msg["content"]["text"])
    reply = kc.execute_interactive(code, timeout=timeout, output_hook=hook)
    return reply["content"], "".join(err)


class LauncherCheckerTests(unittest.TestCase):
    """The Enterprise Gateway kernelspec runs `tsgpu launch` through `tsgpu-launch --checker KEY`, which starts
    the type checker's process from the start file that `tsgpu install` wrote beside the snapshot; the kernel
    takes it over (kernel/launch/early_checker.c)."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="tsgpu-launch-checker-")
        cls.cache = os.path.join(cls.scratch, "cache")
        prefix = os.path.join(cls.scratch, "prefix")
        subprocess.run([NODE, str(CLI), "install", "--prefix", prefix, "--gateway", "distributed"], check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, "TSGPU_CACHE_DIR": cls.cache})
        with open(os.path.join(prefix, "share", "jupyter", "kernels", "tsgpu_distributed", "kernel.json")) as f:
            argv = json.load(f)["argv"]
        cls.command = argv[:argv.index("launch") + 1]
        cls.start_files = glob.glob(os.path.join(cls.cache, "checker-start-*"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def launch(self):
        k = Launched(self, command=self.command, env={"TSGPU_CACHE_DIR": self.cache, "TSGPU_LOG_LEVEL": "debug"})
        k.receive()
        return k

    def kernel_log(self, k):
        """The kernel's stderr up to now (it ends when the kernel does)."""
        k.kc.shutdown()
        k.wait()
        return k.proc.stderr.read()

    def test_the_kernelspec_starts_the_launcher_with_the_start_files_key(self):
        launcher = str(CLI.parents[2] / "build" / "Release" / "tsgpu-launch")
        self.assertEqual(self.command[:2], [launcher, "--checker"])
        self.assertEqual([os.path.basename(f) for f in self.start_files], [f"checker-start-{self.command[2]}"])

    def test_the_kernel_takes_over_the_checker_the_launcher_started(self):
        k = self.launch()
        kc = k.connect()
        checkers = checker_processes(k.proc.pid)
        self.assertEqual(len(checkers), 1, checkers)
        reply, err = stderr_of_cell(kc, 'const n: number = "seven"; console.log(n)')
        self.assertEqual(reply["status"], "ok", reply)
        self.assertIn("TS2322", err)
        self.assertEqual(checker_processes(k.proc.pid), checkers)
        log = self.kernel_log(k)
        self.assertIn(f"took over the checker process {checkers[0]} that the launcher started", log)

    def test_a_checker_from_another_snapshot_is_ended(self):
        # A start file written by another build of the kernel names another snapshot: the launcher still
        # starts its command, and the kernel ends that process and starts its own.
        [start] = self.start_files
        with open(start, "rb") as f:
            fields = f.read().split(b"\0")
        other = os.path.join(self.scratch, "other.snapshot")
        shutil.copyfile(fields[1], other)
        stale = b"\0".join([fields[0], other.encode(), *fields[2:]])
        def write(data):
            with open(start, "wb") as f:
                f.write(data)
        write(stale)
        self.addCleanup(write, b"\0".join(fields))
        k = self.launch()
        kc = k.connect()
        reply, err = stderr_of_cell(kc, 'const s: string = 7; console.log(s)')
        self.assertEqual(reply["status"], "ok", reply)
        self.assertIn("TS2322", err)
        [own] = checker_processes(k.proc.pid)
        log = self.kernel_log(k)
        ended = re.search(r"ended the checker process (\d+) that the launcher started from (\S+): this kernel's snapshot is "
                          + re.escape(fields[1].decode()), log)
        self.assertTrue(ended, log)
        self.assertEqual(ended.group(2), other)
        self.assertNotEqual(int(ended.group(1)), own)
        self.assertNotIn("took over the checker process", log)


if __name__ == "__main__":
    unittest.main()
