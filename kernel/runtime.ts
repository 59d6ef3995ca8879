/** Loads the tensor runtime (`torch`) on first use, so a kernel that never touches it starts fast. */
import { join } from "path";

let runtime: any;

export function loadRuntime(): any {
  if (!runtime) {
    runtime = require(join(__dirname, "..", "native", "index"));
    (globalThis as any).__tsgpu_runtime_loaded = true;
  }
  return runtime;
}

/** The usage_reply content: what jupyter-resource-usage reads, plus GPU memory of our own. */
export function runtimeUsage(): Record<string, unknown> {
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  const os = require("os");
  const content: Record<string, unknown> = {
    status: "ok",
    hostname: os.hostname(),
    kernel_cpu: (cpu.user + cpu.system) / 1e6,
    kernel_memory: mem.rss,
    cpu_count: os.cpus().length,
    host_cpu_percent: (os.loadavg()[0] / Math.max(1, os.cpus().length)) * 100,
    host_virtual_memory: { total: os.totalmem(), available: os.freemem(), used: os.totalmem() - os.freemem(),
      percent: (1 - os.freemem() / os.totalmem()) * 100, free: os.freemem() },
    pid: process.pid,
  };
  if ((globalThis as any).__tsgpu_runtime_loaded) {
    try {
      const t = loadRuntime();
      const devices: Record<string, unknown> = {};
      for (const d of t.memory.devices()) {
        const [free, total] = t.memory.memGetInfo(d);
        devices[d] = { allocated: t.memory.allocated(d), reserved: t.memory.reserved(d), max_allocated: t.memory.maxAllocated(d), free, total };
      }
      content.tsgpu_devices = devices;
    } catch (e) {
      content.tsgpu_devices_error = String((e as Error).message);
    }
  }
  return content;
}
