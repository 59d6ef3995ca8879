/**
 * The TypeScript side of tsgpu_listen.node (listen_addon.c), the launcher's
 * small addon: loaded on first use, before anything else of the kernel
 * needs it. The transport takes the launcher's sockets over with it
 * (transport/listen_fds.ts), the checker marks the launched checker's
 * descriptors close-on-exec (language/checker_channel.ts), and
 * `tsgpu launch` makes its comm port (gateway/launch.ts).
 */
import { join, resolve } from "path";
import { getSystemErrorName } from "util";

/** Where the build puts the addon (build/Release, beside tsgpu-launch; or the folder TSGPU_NATIVE_DIR names, as for tsgpu.node). */
export const LISTEN_ADDON = process.env.TSGPU_NATIVE_DIR ? resolve(process.env.TSGPU_NATIVE_DIR, "tsgpu_listen.node")
  : join(__dirname, "..", "..", "..", "build", "Release", "tsgpu_listen.node");

interface ListenAddon {
  adoptListener(fd: number): number;
  closeOnExec(fd: number): boolean;
  listenTcp(port: number): number;
}

function addon(): ListenAddon {
  return require(LISTEN_ADDON) as ListenAddon;
}

/**
 * The function that checks a socket the launcher passed on (a listening TCP socket: marks it
 * close-on-exec and returns its port, or -1), or why the addon cannot be loaded.
 */
export function loadAdoptListener(): { adopt: (fd: number) => number } | { why: string } {
  try {
    return { adopt: addon().adoptListener };
  } catch (e) {
    return { why: `cannot load ${LISTEN_ADDON}: ${(e as Error).message.split("\n")[0]}` };
  }
}

/**
 * Marks a descriptor the launcher passed on close-on-exec, so that no process the kernel starts holds it;
 * false when the addon is not there or the descriptor is not open.
 */
export function closeOnExec(fd: number): boolean {
  try {
    return addon().closeOnExec(fd);
  } catch {
    return false;
  }
}

/**
 * A close-on-exec socket listening on 0.0.0.0:port, as a descriptor (for another thread to take over with
 * net's `listen({ fd })`), or why there is none.
 */
export function listenTcp(port: number): { fd: number } | { why: string } {
  let fd: number;
  try {
    fd = addon().listenTcp(port);
  } catch (e) {
    return { why: `cannot load ${LISTEN_ADDON}: ${(e as Error).message.split("\n")[0]}` };
  }
  return fd >= 0 ? { fd } : { why: `cannot listen on port ${port}: ${getSystemErrorName(fd)}` };
}
