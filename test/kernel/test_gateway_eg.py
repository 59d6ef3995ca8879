"""tsgpu through the real Jupyter Enterprise Gateway (eg_driver.py): EG from
its source on Debian's Python packages, on loopback, with the kernelspec
`tsgpu install --gateway distributed` writes; through EG's REST API and
kernel websocket: create, execute, interrupt, restart, a killed kernel
detected, delete, and no kernel process left. DistributedProcessProxy both
for localhost (EG starts the launcher itself) and over ssh (Debian's sshd on
127.0.0.2 with a test key).

It needs checkouts of EG and of jupyter_client v6.1.12, named by
TSGPU_EG_SOURCE and TSGPU_JUPYTER_CLIENT_SOURCE; without them it skips and
says so.

    TSGPU_EG_SOURCE=… TSGPU_JUPYTER_CLIENT_SOURCE=… \\
      /usr/bin/python3 -m unittest discover -s test/kernel -p "test_gateway_eg.py" -v
"""

import asyncio
import os
import signal
import time
import unittest

from eg_driver import (Channels, create_kernel, Gateway, SshHost, check_modules, checker_processes, kernel_processes,
                       sources, tsgpu_spec)

(SRC, SKIP) = sources()


def wait_for(predicate, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@unittest.skipIf(SRC is None, SKIP)
class EnterpriseGatewayTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        eg, jc = SRC
        cls.jupyter_client_version = check_modules(eg, jc)
        cls.ssh = None
        cls.gw = None
        try:
            import tempfile
            cls.home = tempfile.mkdtemp(prefix="tsgpu-eg-home-")
            cls.ssh = SshHost(cls.home)
            cls.gw = Gateway(eg, jc, {
                "tsgpu_local": tsgpu_spec(["--remote-hosts", "localhost"], "tsgpu on localhost"),
                "tsgpu_ssh": tsgpu_spec(["--remote-hosts", "127.0.0.2"], "tsgpu over ssh"),
            }, ssh_port=cls.ssh.port, home=cls.home)
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.gw:
            cls.gw.close()
        if cls.ssh:
            cls.ssh.close()

    def run_async(self, coro):
        try:
            return asyncio.run(coro)
        except Exception:
            print(f"\n--- Enterprise Gateway log (last lines) ---\n{self.gw.log_tail(60)}")
            for log in sorted(self.gw.dir.glob("kernel-*.log")):
                print(f"--- {log.name} ---\n{log.read_text()[-3000:]}")
            raise

    async def lifecycle(self, name):
        gw = self.gw
        figures = {}
        t0 = time.perf_counter()
        kid = await create_kernel(gw, name)
        figures["create_s"] = time.perf_counter() - t0
        ch = await Channels.open(gw, kid)
        reply, out = await ch.execute("let kept = 7; console.log('hello from', typeof torch, kept)")
        figures["first_cell_s"] = time.perf_counter() - t0
        self.assertEqual((reply["status"], out), ("ok", "hello from object 7\n"), reply)
        [pid] = kernel_processes(kid)
        # Its type checker: a process of its own, started from the snapshot `tsgpu install` built.
        [checker] = checker_processes(pid)

        # Interrupt a busy loop through EG (interrupt_mode "message": an interrupt_request on control).
        msg_id = ch.send("shell", "execute_request", {"code": "let spins = 0; while (true) { spins++; }",
                                                      "silent": False, "store_history": True,
                                                      "user_expressions": {}, "allow_stdin": False,
                                                      "stop_on_error": False})
        await asyncio.sleep(1.0)
        t1 = time.perf_counter()
        await gw.request("POST", f"/api/kernels/{kid}/interrupt")
        while True:
            m = await ch.recv(20)
            if m["header"]["msg_type"] == "execute_reply" and m["parent_header"]["msg_id"] == msg_id:
                break
        figures["interrupt_s"] = time.perf_counter() - t1
        self.assertEqual(m["content"]["status"], "error", m["content"])
        reply, out = await ch.execute("console.log(kept * 6, spins > 0)")
        self.assertEqual((reply["status"], out), ("ok", "42 true\n"))

        # Restart: a new kernel process, without the old one's state.
        ch.close()
        t1 = time.perf_counter()
        await gw.request("POST", f"/api/kernels/{kid}/restart")
        ch = await Channels.open(gw, kid)
        reply, out = await ch.execute("console.log(typeof kept)")
        figures["restart_s"] = time.perf_counter() - t1
        self.assertEqual((reply["status"], out), ("ok", "undefined\n"))
        wait_for(lambda: pid not in kernel_processes(kid), 15, f"the kernel before the restart (pid {pid}) to end")
        [pid2] = kernel_processes(kid)
        self.assertNotEqual(pid2, pid)
        wait_for(lambda: checker not in checker_processes(), 15, f"the checker of the kernel before the restart (pid {checker}) to end")
        [checker2] = wait_for(lambda: checker_processes(pid2), 15, f"the checker of the restarted kernel (pid {pid2})")

        # A killed kernel: EG notices (status "restarting" or "dead" on the websocket) and starts a new one.
        t1 = time.perf_counter()
        os.kill(pid2, signal.SIGKILL)
        state = await ch.status_until({"restarting", "dead"}, 60)
        figures["kill_detected_s"] = time.perf_counter() - t1
        figures["kill_detected_as"] = state
        self.assertEqual(state, "restarting")
        pid3 = wait_for(lambda: [p for p in kernel_processes(kid) if p != pid2], 60, "the kernel started after the kill")[0]
        # The killed kernel's checker ends with it (its IPC channel closes).
        wait_for(lambda: checker2 not in checker_processes(), 15, f"the checker of the killed kernel (pid {checker2}) to end")
        ch.close()
        # A websocket opened while EG still waits for the new kernel's connection info is not served: reconnect,
        # as a client does, until a cell runs.
        deadline = time.time() + 60
        while True:
            ch = await Channels.open(gw, kid)
            try:
                reply, out = await ch.execute("console.log('back')", timeout=2)
                break
            except (asyncio.TimeoutError, ConnectionError):
                ch.close()
                if time.time() > deadline:
                    raise
        figures["back_after_kill_s"] = time.perf_counter() - t1
        self.assertEqual((reply["status"], out), ("ok", "back\n"))
        ch.close()

        # The kernel that answered (the pid seen first may have been the shell that started it), and its checker.
        [pid3] = kernel_processes(kid)
        [checker3] = wait_for(lambda: checker_processes(pid3), 15, f"the checker of the kernel that answered (pid {pid3})")

        # Delete: EG ends the kernel, and no process of it is left.
        t1 = time.perf_counter()
        await gw.request("DELETE", f"/api/kernels/{kid}")
        wait_for(lambda: not kernel_processes(kid), 20, f"no process of kernel {kid} (pid {pid3}) left")
        wait_for(lambda: checker3 not in checker_processes(), 15, f"the checker of the deleted kernel (pid {checker3}) to end")
        figures["delete_s"] = time.perf_counter() - t1
        with self.assertRaisesRegex(RuntimeError, "HTTP 404"):
            await gw.request("GET", f"/api/kernels/{kid}")
        print(f"\n{name}: " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items()))
        return figures

    def test_distributed_localhost(self):
        self.run_async(self.lifecycle("tsgpu_local"))

    def test_distributed_over_ssh(self):
        self.run_async(self.lifecycle("tsgpu_ssh"))


if __name__ == "__main__":
    unittest.main()
