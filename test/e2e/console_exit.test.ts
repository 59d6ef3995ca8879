/**
 * `exit` in `jupyter console` (a package of its own: `jupyter-console` on
 * Debian) leaves the console and ends the kernel, as with IPython: the
 * console is run on a terminal (a pty) with the tsgpu kernelspec.
 */
import { spawnSync } from "child_process";
import { kernelspecEnv, PY } from "../jupyter";

const SCRIPT = `
import os, sys, pty, time, select, json
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.executable, [sys.executable, "-m", "jupyter_console", "--kernel", "tsgpu", "--simple-prompt"])
buf = b""
def pump(until, seconds):
    global buf
    end = time.time() + seconds
    while time.time() < end:
        if until(): return True
        try:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r: buf += os.read(fd, 4096)
        except OSError:
            pass
    return until()
out = {"prompt": pump(lambda: b"In [1]" in buf, 90)}
os.write(fd, b"1 + 1\\n")
out["result"] = pump(lambda: b"Out[1]: 2" in buf, 60)
os.write(fd, b"exit\\n")
status = []
def ended():
    p, st = os.waitpid(pid, os.WNOHANG)
    if p: status.append(os.waitstatus_to_exitcode(st))
    return bool(status)
out["ended"] = pump(ended, 30)
if not status: os.kill(pid, 9)
out["status"] = status[0] if status else None
out["shutdown"] = b"Shutting down kernel" in buf
out["error"] = b"ReferenceError" in buf
print(json.dumps(out))
`;

const why = spawnSync(PY, ["-c", "import jupyter_console"], { encoding: "utf8" }).status === 0 ? null : "jupyter_console is not installed (apt-get install jupyter-console)";
if (why) console.log(`skipping the jupyter console test: ${why}`);
(why ? test.skip : test)("exit leaves jupyter console and shuts the kernel down", () => {
  const r = spawnSync(PY, ["-c", SCRIPT], { env: kernelspecEnv(), encoding: "utf8", timeout: 180000 });
  expect(r.status === 0 ? "" : r.stderr).toBe("");
  expect(JSON.parse(r.stdout.trim().split("\n").pop()!)).toEqual({ prompt: true, result: true, ended: true, status: 0, shutdown: true, error: false });
}, 200000);
