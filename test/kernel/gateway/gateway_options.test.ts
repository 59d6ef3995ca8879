/**
 * `tsgpu launch`'s pieces on their own: its options (command line and pod
 * environment), port choice in a range, and the payload's form. The whole
 * launcher against Enterprise Gateway's side is test_gateway_launch.py.
 */
import { generateKeyPairSync } from "crypto";
import type { Server } from "net";
import { parseLaunchArgs, parsePortRange } from "../../../kernel/gateway/options";
import { candidatePort, closeAll, holdPorts, listenInRange, portOf } from "../../../kernel/gateway/ports";
import { encryptConnectionInfo, GatewayConnectionInfo } from "../../../kernel/gateway/payload";

const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
/** A public key as EG passes it: base64 DER SubjectPublicKeyInfo. */
const KEY = rsa.publicKey.export({ format: "der", type: "spki" }).toString("base64");
const BASE = ["--kernel-id", "k1", "--response-address", "10.0.0.5:8877", "--public-key", KEY];
const NO_ENV = {};

describe("launch options", () => {
  test("EG's spellings, both forms, and options it passes for Spark ignored", () => {
    const o = parseLaunchArgs(["--RemoteProcessProxy.kernel-id", "k2", "--RemoteProcessProxy.response-address=10.1.2.3:9000",
      "--public-key", KEY, "--port-range", "40000..41000", "--RemoteProcessProxy.spark-context-initialization-mode", "none"], NO_ENV);
    expect(o.kernelId).toBe("k2");
    expect(o.response).toEqual({ host: "10.1.2.3", port: 9000 });
    expect(o.portRange).toEqual({ lo: 40000, hi: 41000 });
    expect(o.publicKey.asymmetricKeyType).toBe("rsa");
    expect(o.ignored).toEqual(["--RemoteProcessProxy.spark-context-initialization-mode none"]);
    expect(o.retries).toBe(5);
    expect(o.launchTimeoutMs).toBe(30000);
  });

  test("in a pod the environment gives what the command line does not", () => {
    const env = { KERNEL_ID: "pod-k", RESPONSE_ADDRESS: "10.0.0.9:8877", PUBLIC_KEY: KEY, PORT_RANGE: "30000..31000",
      EG_MAX_PORT_RANGE_RETRIES: "9", KERNEL_LAUNCH_TIMEOUT: "45" };
    const o = parseLaunchArgs([], env);
    expect([o.kernelId, o.response.port, o.portRange.lo, o.retries, o.launchTimeoutMs]).toEqual(["pod-k", 8877, 30000, 9, 45000]);
    expect(parseLaunchArgs(["--kernel-id", "arg-k"], env).kernelId).toBe("arg-k");
  });

  test("no range, LO..LO and 0..0 mean any free port", () => {
    expect(parseLaunchArgs(BASE, NO_ENV).portRange).toEqual({ lo: 0, hi: 0 });
    expect(parsePortRange("0..0", 1000)).toEqual({ lo: 0, hi: 0 });
    expect(parsePortRange("5000..5000", 1000)).toEqual({ lo: 0, hi: 0 });
  });

  test("bad values name the option and the value", () => {
    const bad = (args: string[], env: NodeJS.ProcessEnv = NO_ENV) => () => parseLaunchArgs(args, env);
    expect(bad(BASE.slice(2))).toThrow("expected a kernel id for --kernel-id (or $KERNEL_ID), got none");
    expect(bad([...BASE, "--kernel-id", "{kernel_id}"])).toThrow('got the unfilled placeholder "{kernel_id}"');
    expect(bad([...BASE, "--response-address", "gateway"])).toThrow('expected HOST:PORT for --response-address, got "gateway"');
    expect(bad([...BASE, "--response-address", "gw:99999"])).toThrow('expected HOST:PORT for --response-address, got "gw:99999"');
    expect(bad([...BASE, "--public-key", "%%%"])).toThrow('expected a base64 DER RSA public key for --public-key, got "%%%"');
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "der", type: "spki" }).toString("base64");
    expect(bad([...BASE, "--public-key", ec])).toThrow("expected an RSA public key for --public-key, got a ec key");
    expect(bad([...BASE, "--port-range", "40000-41000"])).toThrow('expected LO..HI for --port-range, got "40000-41000"');
    expect(bad([...BASE, "--port-range", "40000..40500"])).toThrow('at least 1000 ports (EG_MIN_PORT_RANGE_SIZE) for --port-range, got "40000..40500" (500)');
    expect(bad([...BASE, "--port-range", "41000..40000"])).toThrow("at least 1000 ports");
    expect(parseLaunchArgs([...BASE, "--port-range", "40000..40500"], { EG_MIN_PORT_RANGE_SIZE: "100" }).portRange).toEqual({ lo: 40000, hi: 40500 });
    expect(bad(BASE, { EG_MAX_PORT_RANGE_RETRIES: "many" })).toThrow('expected a whole number for EG_MAX_PORT_RANGE_RETRIES, got "many"');
    expect(bad([...BASE, "--port-range"])).toThrow("--port-range needs a value");
    expect(bad([...BASE, "--bogus"])).toThrow("unknown option --bogus");
    expect(bad([...BASE, "-x"])).toThrow("unknown option -x");
  });
});

describe("ports", () => {
  test("candidates lie inside the range, both ends included", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 400; i++) seen.add(candidatePort({ lo: 40000, hi: 40003 }));
    expect([...seen].sort()).toEqual([40000, 40001, 40002, 40003]);
    expect(candidatePort({ lo: 0, hi: 0 })).toBe(0);
  });

  test("five distinct ports held inside a range", async () => {
    const lo = 20000 + Math.floor(Math.random() * 9000);
    const held = await holdPorts(5, { lo, hi: lo + 1000 }, 5);
    const ports = held.map(portOf);
    expect(new Set(ports).size).toBe(5);
    for (const p of ports) expect(p >= lo && p <= lo + 1000).toBe(true);
    await closeAll(held);
  });

  test("a range whose ports are all taken fails after the retries", async () => {
    // Two adjacent ports, both held here.
    let held: Server[] = [];
    let lo = 0;
    for (let i = 0; i < 100 && held.length < 2; i++) {
      await closeAll(held);
      lo = 20000 + Math.floor(Math.random() * 9000);
      held = [];
      try {
        for (const port of [lo, lo + 1]) held.push(await listenInRange({ lo: port, hi: port + 1 }, 0).then((s) => {
          if (portOf(s) !== port) { s.close(); throw new Error("taken"); }
          return s;
        }));
      } catch { /* try another pair */ }
    }
    expect(held.length).toBe(2);
    await expect(listenInRange({ lo, hi: lo + 1 }, 3)).rejects.toThrow(`no free port within the port range ${lo}..${lo + 1} after 4 tries`);
    await closeAll(held);
  });
});

describe("payload", () => {
  test("base64 of {version 1, key, conn_info}: an RSA block and whole AES blocks", () => {
    const info: GatewayConnectionInfo = {
      shell_port: 1, iopub_port: 2, stdin_port: 3, control_port: 4, hb_port: 5, ip: "0.0.0.0", key: "k",
      transport: "tcp", signature_scheme: "hmac-sha256", kernel_name: "", comm_port: 6, pid: 7, pgid: 7, kernel_id: "id",
    };
    const a = JSON.parse(Buffer.from(encryptConnectionInfo(info, parseLaunchArgs(BASE, NO_ENV).publicKey), "base64").toString());
    expect(Object.keys(a).sort()).toEqual(["conn_info", "key", "version"]);
    expect(a.version).toBe(1);
    expect(Buffer.from(a.key, "base64").length).toBe(128);
    const body = Buffer.from(a.conn_info, "base64");
    expect(body.length % 16).toBe(0);
    expect(body.length).toBeGreaterThan(JSON.stringify(info).length);
    // A fresh AES key each time.
    const b = JSON.parse(Buffer.from(encryptConnectionInfo(info, parseLaunchArgs(BASE, NO_ENV).publicKey), "base64").toString());
    expect(b.conn_info).not.toBe(a.conn_info);
  });
});
