/**
 * `exit` and `quit` in a cell, through jupyter_client as `jupyter console`
 * drives a kernel: the execute_reply carries ipykernel's `ask_exit` payload
 * (the console leaves on it), nothing else is shown, and the kernel itself
 * keeps running (in a notebook the payload is all there is). A cell that
 * defined `exit` gets its own value.
 */
import { spawnSync } from "child_process";
import { jupyterTest, kernelspecEnv, PY } from "../jupyter";

const SCRIPT = `
import json
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="tsgpu", startup_timeout=60)
out = []
try:
    for code in ["exit", "quit()", "exit;", "1 + 1", "const quit = 42;", "quit"]:
        msg_id = kc.execute(code)
        reply = kc.get_shell_msg(timeout=60)
        outputs = []
        while True:
            m = kc.get_iopub_msg(timeout=60)
            if m["parent_header"].get("msg_id") != msg_id: continue
            t = m["header"]["msg_type"]
            if t == "status" and m["content"]["execution_state"] == "idle": break
            if t in ("stream", "error", "execute_result", "display_data"): outputs.append([t, m["content"].get("data", m["content"]).get("text/plain", "")])
        out.append({"code": code, "status": reply["content"]["status"], "count": reply["content"]["execution_count"],
                    "payload": reply["content"]["payload"], "outputs": outputs, "alive": km.is_alive()})
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
print(json.dumps(out))
`;

jupyterTest("exit and quit answer with ask_exit, and the kernel stays alive", async () => {
  const r = spawnSync(PY, ["-c", SCRIPT], { env: kernelspecEnv(), encoding: "utf8", timeout: 120000 });
  expect(r.status === 0 ? "" : r.stderr).toBe("");
  const replies = JSON.parse(r.stdout.trim().split("\n").pop()!);
  const askExit = [{ source: "ask_exit", keepkernel: false }];
  expect(replies.map((x: any) => [x.code, x.status, x.count, x.payload, x.outputs, x.alive])).toEqual([
    ["exit", "ok", 1, askExit, [], true],
    ["quit()", "ok", 2, askExit, [], true],
    ["exit;", "ok", 3, askExit, [], true],
    ["1 + 1", "ok", 4, [], [["execute_result", "2"]], true],
    ["const quit = 42;", "ok", 5, [], [], true],
    ["quit", "ok", 6, [], [["execute_result", "42"]], true],
  ]);
}, 150000);
