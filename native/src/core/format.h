// Human-readable sizes, in the styles PyTorch uses.
#pragma once

#include <cstdint>
#include <string>

namespace tsgpu {

/**
 * Size as in PyTorch's allocator messages: "512 bytes", "1.50 KiB",
 * "256.00 MiB", "2.00 GiB" (two decimals, binary units).
 */
std::string formatBytes(uint64_t bytes);

/**
 * Parses a byte count such as "2GiB", "512MiB", "1.5GB", "4096" (plain bytes).
 * Binary (KiB/MiB/GiB/TiB) and decimal (KB/MB/GB/TB) units are accepted, case
 * insensitive. Throws ArgumentError naming `what` on a bad value.
 */
uint64_t parseByteSize(const std::string& text, const std::string& what);

}  // namespace tsgpu
