/**
 * Port choice for a launched kernel, as Enterprise Gateway's own launcher
 * does it: a random port inside the port range (any free port when there is
 * none), another one when it is taken, up to `retries` more times.
 */
import { ListenOptions, Server, createServer } from "net";
import type { PortRange } from "./options";

/** A random port in the range, or 0 (the system chooses) when there is no range. */
export function candidatePort(range: PortRange): number {
  if (range.hi - range.lo <= 0) return 0;
  return range.lo + Math.floor(Math.random() * (range.hi - range.lo + 1));
}

/** A server listening as `where` says (a port of a host, or a listening socket's descriptor); rejects with the error. */
export function listening(where: ListenOptions | { fd: number }): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(where, () => { s.off("error", reject); resolve(s); });
  });
}

/** A server listening on port (0: one the system chooses) of host, exclusively. */
export function listenOn(port: number, host: string): Promise<Server> {
  return listening({ port, host, exclusive: true });
}

/** The port a listening server holds. */
export function portOf(s: Server): number {
  const a = s.address();
  if (!a || typeof a === "string") throw new Error("the server is not listening on a TCP port");
  return a.port;
}

/**
 * A server listening on a free port of the range on every interface (the
 * gateway reaches the kernel on the host's address), after at most
 * `retries` more tries; throws naming the range and the tries.
 */
export async function listenInRange(range: PortRange, retries: number, host = "0.0.0.0"): Promise<Server> {
  let last: unknown;
  for (let attempt = 0; attempt <= retries; attempt++) {
    try {
      return await listenOn(candidatePort(range), host);
    } catch (e) {
      last = e;
    }
  }
  const where = range.hi > 0 ? `within the port range ${range.lo}..${range.hi}` : "on this host";
  throw new Error(`no free port ${where} after ${retries + 1} tries (last: ${(last as Error)?.message ?? last}); ` +
    `widen --port-range or raise EG_MAX_PORT_RANGE_RETRIES`);
}

/**
 * Servers holding `count` distinct free ports of the range (taken at once: a port one of them holds is taken
 * for the others); the caller closes them once the ports are spoken for.
 */
export async function holdPorts(count: number, range: PortRange, retries: number): Promise<Server[]> {
  const tries = await Promise.allSettled(Array.from({ length: count }, () => listenInRange(range, retries)));
  const held = tries.flatMap((t) => t.status === "fulfilled" ? [t.value] : []);
  const failed = tries.find((t): t is PromiseRejectedResult => t.status === "rejected");
  if (failed) {
    await closeAll(held);
    throw failed.reason;
  }
  return held;
}

export function closeAll(servers: Server[]): Promise<void> {
  return Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined);
}
