/** Loads the tensor runtime (`torch`) on first use, so a kernel that never touches it starts fast. */
import { join } from "path";

let runtime: any;
/** Execution count of the cell running now (tensors made are tagged with it), kept until the runtime loads. */
let currentCell = 0;

export function loadRuntime(): any {
  if (!runtime) {
    runtime = require(join(__dirname, "..", "native", "index"));
    (globalThis as any).__tsgpu_runtime_loaded = true;
    runtime.memory.setAllocationCell(currentCell);
  }
  return runtime;
}

/** A cell starts: tensors made from now on carry its execution count (`%memory --tensors` groups by it). */
export function setRuntimeCell(executionCount: number): void {
  currentCell = executionCount;
  if (runtime) runtime.memory.setAllocationCell(executionCount);
}

/** Allocated/reserved/free bytes per device, for usage_reply; empty until a cell used the runtime. */
export function deviceUsage(): Record<string, unknown> {
  if (!(globalThis as any).__tsgpu_runtime_loaded) return {};
  const devices: Record<string, unknown> = {};
  try {
    const t = loadRuntime();
    for (const d of t.memory.devices()) {
      const [free, total] = t.memory.memGetInfo(d);
      devices[d] = { allocated: t.memory.allocated(d), reserved: t.memory.reserved(d), max_allocated: t.memory.maxAllocated(d), free, total };
    }
  } catch (e) {
    devices.error = String((e as Error).message);
  }
  return devices;
}
