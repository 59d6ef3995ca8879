/**
 * The usage_reply content that jupyter-resource-usage reads. Answered by the
 * socket worker, so it comes back even while a cell holds the main thread;
 * the device figures are the latest the main thread sent.
 */
import { cpus, freemem, hostname, loadavg, totalmem } from "os";

export function processUsage(devices: Record<string, unknown> | undefined): Record<string, unknown> {
  const cpu = process.cpuUsage();
  const free = freemem();
  const total = totalmem();
  return {
    status: "ok",
    hostname: hostname(),
    pid: process.pid,
    kernel_cpu: (cpu.user + cpu.system) / 1e6,
    kernel_memory: process.memoryUsage.rss(),
    cpu_count: cpus().length,
    host_cpu_percent: (loadavg()[0] / Math.max(1, cpus().length)) * 100,
    host_virtual_memory: { total, available: free, used: total - free, free, percent: (1 - free / total) * 100 },
    tsgpu_devices: devices ?? {},
  };
}
