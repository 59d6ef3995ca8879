/**
 * A process that used a KernelClient exits once the client is closed, even
 * when messages were still queued for a kernel that is gone (as `tsgpu run`
 * and nbconvert-like tools do at the end): they are dropped, not waited for.
 */
import { spawnSync } from "child_process";
import { join } from "path";
import { ROOT } from "../../helpers";

test("closing a client whose kernel died with a message queued lets the process exit", () => {
  const script = `
    const { KernelClient } = require(${JSON.stringify(join(ROOT, "dist", "kernel", "transport", "client.js"))});
    const { kernelArgv } = require(${JSON.stringify(join(ROOT, "dist", "kernel", "commands", "install.js"))});
    (async () => {
      const c = await KernelClient.start({ argv: kernelArgv(), env: process.env });
      const proc = c["proc"];
      proc.kill("SIGKILL");
      await new Promise((r) => proc.once("exit", r));
      await c.send(c.shell, "kernel_info_request", {}); // queued: nobody will read it
      c.close();
      console.log("closed");
    })();`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20000 });
  expect(r.error).toBeUndefined(); // it did not hang until the timeout
  expect(r.stdout).toBe("closed\n");
  expect(r.stderr).not.toContain("Waiting for queued ZeroMQ messages");
  expect(r.status).toBe(0);
}, 30000);
