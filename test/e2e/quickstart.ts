import { magicMime } from "../../magics/mime";

/** What the executed quickstart notebook must show, whichever tool ran it. */
export function memoryOutputs(nb: any): any[] {
  return nb.cells
    .filter((c: any) => c.cell_type === "code" && [].concat(c.source).join("").trim() === "%memory")
    .map((c: any) => c.outputs.find((o: any) => o.output_type === "display_data")?.data?.[magicMime("memory")]);
}

export function checkQuickstart(nb: any): void {
  const errors = nb.cells.flatMap((c: any) => (c.outputs ?? []).filter((o: any) => o.output_type === "error"));
  expect(errors).toEqual([]);
  const [before, after] = memoryOutputs(nb);
  expect(before).toBeDefined();
  // The notebook uses cuda:0 where there is a GPU, cpu elsewhere; %memory lists every device in use.
  expect(before.tensors).toHaveLength(1);
  const used = before.tensors[0].device;
  expect(used).toBe(before.cuda_available ? "cuda:0" : "cpu");
  const device = before.devices.find((d: any) => d.device === used);
  // 1000 × 1000 float32 = 4,000,000 bytes, rounded up to 512: 4,000,256.
  expect(device.allocated).toBe(4000256);
  expect(device.stats["allocated_bytes.all.current"]).toBe(4000256);
  expect(device.stats["requested_bytes.all.current"]).toBe(4000000);
  expect(device.reserved).toBeGreaterThanOrEqual(device.allocated);
  expect(before.tensors).toEqual([expect.objectContaining({ shape: [1000, 1000], dtype: "float32", nbytes: 4000000 })]);
  // After dispose(): nothing allocated, the peak remembers the tensor.
  const afterDevice = after.devices.find((d: any) => d.device === used);
  expect(afterDevice.allocated).toBe(0);
  expect(afterDevice.max_allocated).toBe(4000256);
  expect(after.tensors).toEqual([]);
  const memoryCell = nb.cells.find((c: any) => [].concat(c.source).join("").trim() === "%memory");
  const display = memoryCell.outputs.find((o: any) => o.output_type === "display_data");
  expect([].concat(display.data["text/html"]).join("")).toContain("<table");
  expect([].concat(display.data["text/plain"]).join("")).toContain("3.81 MiB");
}
