/**
 * A notebook's memory cells run where CUDA cannot be used, through a real
 * kernel: torch.cuda statistics read 0 as PyTorch's do, and %memory says why
 * CUDA is unavailable in the runtime's words. Skipped, saying so, on a
 * machine with a usable CUDA device.
 */
import * as torch from "../../native/index";
import { native } from "../../native/addon";
import { cudaDriverLibraryFound, NO_DRIVER_REASON, ofType, startKernel } from "../helpers";

const withoutCuda = !torch.cuda.isAvailable();
if (!withoutCuda) console.log("magics no_cuda tests skipped: they need a machine without a usable CUDA device");

(withoutCuda ? test : test.skip)("torch.cuda memory calls answer and %memory names the reason", async () => {
  const k = await startKernel();
  try {
    const cell = "torch.cuda.resetPeakMemoryStats();\n" +
      "[torch.cuda.memoryAllocated(), torch.cuda.maxMemoryReserved(0), Object.keys(torch.cuda.memoryStats()).length, torch.cuda.emptyCache().releasedBytes, torch.cuda.memorySummary().includes('device ID 0')]";
    const r = await k.execute(cell);
    expect(r.reply.content.status).toBe("ok");
    expect(ofType(r.outputs, "execute_result")[0].content.data["text/plain"]).toBe("[ 0, 0, 0, 0, true ]");
    const m = await k.execute("%memory");
    const text: string = ofType(m.outputs, "display_data")[0].content.data["text/plain"];
    expect(text).toContain(`CUDA unavailable: ${torch.cuda.unavailableReason()}`);
    if (native.builtWithCuda && !cudaDriverLibraryFound()) expect(text).toContain(`CUDA unavailable: ${NO_DRIVER_REASON}`);
  } finally {
    await k.shutdown();
  }
}, 60000);
