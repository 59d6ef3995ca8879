/**
 * The listening sockets a kernel's launcher (kernel/launch/launch.c,
 * the kernelspec's first program) bound before it started Node.js: named in
 * TSGPU_LISTEN_FDS, they are checked and made close-on-exec here by a tiny
 * addon (tsgpu_listen.node), then zeromq takes each one over instead of
 * binding its port itself (ZMQ_USE_FD). Clients that connected meanwhile
 * wait in the socket's backlog rather than being refused and retrying later.
 *
 * Anything unexpected (no addon, a socket that is not the connection file's
 * port, another process's variable) and none is used: the ones named are
 * closed and the kernel binds its ports as it would without a launcher.
 */
import { closeSync } from "fs";
import { loadAdoptListener } from "../launch/listen_addon";
import type { ConnectionInfo } from "../protocol/connection";

export type SocketName = "shell" | "iopub" | "control" | "stdin" | "hb";

/** File descriptors of listening sockets, by the kernel socket that takes them over. */
export type ListenFds = Partial<Record<SocketName, number>>;

const ENV = "TSGPU_LISTEN_FDS";
const PORT_FIELD: Record<SocketName, keyof ConnectionInfo> = {
  shell: "shell_port", iopub: "iopub_port", control: "control_port", stdin: "stdin_port", hb: "hb_port",
};
/** zmq_setsockopt's ZMQ_USE_FD. */
const ZMQ_USE_FD = 89;

/**
 * Takes the launcher's sockets for `info` out of the environment (children
 * of the kernel do not see the variable). Returns those it can use, all of
 * them or none; `why` says why none when some were named.
 */
export function takeListenFds(info: ConnectionInfo, env: NodeJS.ProcessEnv = process.env): { fds: ListenFds; why?: string } {
  const text = env[ENV];
  if (text === undefined) return { fds: {} };
  delete env[ENV];
  const named = new Map<SocketName, { fd: number; port: number }>();
  let pid = -1;
  for (const part of text.split(";")) {
    const m = /^(pid)=(\d+)$|^(shell|iopub|control|stdin|hb)=(\d+):(\d+)$/.exec(part);
    if (!m) return { fds: {}, why: `${ENV}: expected pid=PID or NAME=FD:PORT, got ${JSON.stringify(part)}` };
    if (m[1]) pid = Number(m[2]);
    else named.set(m[3] as SocketName, { fd: Number(m[4]), port: Number(m[5]) });
  }
  const fail = (why: string) => {
    // Sockets of this process that are not used are closed (the kernel binds its ports itself).
    if (pid === process.pid) for (const { fd } of named.values()) { try { closeSync(fd); } catch { /* not open */ } }
    return { fds: {}, why };
  };
  if (pid !== process.pid) return { fds: {}, why: `${ENV} names process ${pid}, not this one (${process.pid}): set by another kernel` };
  if (info.transport !== "tcp") return fail(`${ENV} is for tcp, the connection file says ${info.transport}`);
  const loaded = loadAdoptListener();
  if ("why" in loaded) return fail(loaded.why);
  const adopt = loaded.adopt;
  const fds: ListenFds = {};
  for (const name of Object.keys(PORT_FIELD) as SocketName[]) {
    const s = named.get(name);
    const want = Number(info[PORT_FIELD[name]]);
    if (!s) return fail(`${ENV} names no socket for ${name}`);
    if (s.port !== want) return fail(`${ENV}: ${name} is port ${s.port}, the connection file says ${want}`);
    const port = adopt(s.fd);
    if (port !== want) return fail(`${ENV}: fd ${s.fd} for ${name} is ${port < 0 ? "not a listening TCP socket" : `port ${port}`}, expected port ${want}`);
    fds[name] = s.fd;
  }
  return { fds };
}

/** Makes a zeromq socket take over a listening socket at its next bind (the bind's address must be that socket's). */
export function useListener(sock: object, fd: number | undefined): void {
  if (fd !== undefined) (sock as { setInt32Option(id: number, value: number): void }).setInt32Option(ZMQ_USE_FD, fd);
}
