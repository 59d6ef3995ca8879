// The memory summary table, laid out exactly as torch.cuda.memory_summary():
// 77-character lines, the same rows and the same unit steps.
#pragma once

#include <string>

#include "core/stats.h"

namespace tsgpu {

struct SummaryOptions {
  bool abbreviated = false;  // only the "all" rows, as memory_summary(abbreviated=True)
  bool cuda = true;          // CUDA wording ("CUDA OOMs", "GPU reserved memory")
  int deviceIndex = 0;       // shown after "device ID" for CUDA devices
  std::string deviceName;    // shown after "device" for non-CUDA devices, e.g. "cpu"
};

/** Renders the table; every line is 77 characters plus "\n". */
std::string formatMemorySummary(const DeviceStats& stats, const SummaryOptions& options);

/** PyTorch's _format_size: "  4000 KiB" style with 768-unit steps. */
std::string summaryFormatSize(int64_t size, int64_t prefSize);

/** PyTorch's _format_count: "   1234   " style with 750 000-unit steps. */
std::string summaryFormatCount(int64_t count, int64_t prefCount);

}  // namespace tsgpu
