// Loads a CBLAS with dlopen (see blas_loader.h).
#include "backends/cpu/blas_loader.h"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdlib>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace tsgpu {
namespace cpu {
namespace {

std::string resolvedPath(void* handle, const std::string& fallback) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr || map->l_name[0] == '\0')
    return fallback;
  // The file behind the loader's name (Debian's alternatives are symlinks).
  char real[PATH_MAX];
  if (realpath(map->l_name, real) != nullptr && std::string(real) != map->l_name)
    return std::string(map->l_name) + " -> " + real;
  return map->l_name;
}

/** Tries one candidate; on success fills lib and returns true, else appends the reason to lib.searched. */
bool tryLoad(const std::string& name, BlasLibrary& lib) {
  void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* err = dlerror();
    lib.searched += (lib.searched.empty() ? "" : "; ") + std::string(err ? err : (name + ": cannot open"));
    return false;
  }
  auto sgemm = reinterpret_cast<SgemmFn>(dlsym(h, "cblas_sgemm"));
  auto dgemm = reinterpret_cast<DgemmFn>(dlsym(h, "cblas_dgemm"));
  if (sgemm == nullptr || dgemm == nullptr) {
    lib.searched += (lib.searched.empty() ? "" : "; ") + name + ": loaded but exports no cblas_sgemm/cblas_dgemm";
    dlclose(h);
    return false;
  }
  lib.loaded = true;
  lib.path = resolvedPath(h, name);
  lib.sgemm = sgemm;
  lib.dgemm = dgemm;
  using ConfigFn = const char* (*)();
  if (auto config = reinterpret_cast<ConfigFn>(dlsym(h, "openblas_get_config"))) {
    const std::string c = config();
    lib.vendor = c.rfind("OpenBLAS", 0) == 0 ? c : "OpenBLAS " + c;
  }
  else if (dlsym(h, "MKL_Get_Max_Threads") != nullptr) lib.vendor = "Intel MKL";
  else lib.vendor = name;
  lib.setThreads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
  if (lib.setThreads == nullptr) lib.setThreads = reinterpret_cast<void (*)(int)>(dlsym(h, "MKL_Set_Num_Threads"));
  return true;  // the handle stays open for the life of the process
}

BlasLibrary load() {
  BlasLibrary lib;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("TSGPU_BLAS_LIBRARY")) {
    if (std::string(env) == "none") {
      lib.searched = "disabled by TSGPU_BLAS_LIBRARY=none";
      return lib;
    }
    if (*env != '\0') candidates.push_back(env);
  }
  for (const char* name : {"libopenblas.so.0", "libopenblas.so", "libblas.so.3", "libmkl_rt.so"}) candidates.push_back(name);
  for (const auto& name : candidates)
    if (tryLoad(name, lib)) return lib;
  lib.searched = "looked for " + [&] {
    std::string s;
    for (const auto& c : candidates) s += (s.empty() ? "" : ", ") + c;
    return s;
  }() + " in the dynamic loader's path (LD_LIBRARY_PATH, /etc/ld.so.cache, /lib, /usr/lib): " + lib.searched;
  return lib;
}

std::atomic<int> gBlasThreads{0};

}  // namespace

const BlasLibrary& blas() {
  static const BlasLibrary lib = load();
  return lib;
}

void blasUseThreads(int n) {
  const BlasLibrary& lib = blas();
  if (lib.setThreads == nullptr || gBlasThreads.load() == n) return;
  lib.setThreads(n);
  gBlasThreads.store(n);
}

std::string blasDescription() {
  const BlasLibrary& lib = blas();
  if (lib.loaded) return lib.vendor + " (" + lib.path + ")";
  return "no BLAS: " + lib.searched;
}

}  // namespace cpu
}  // namespace tsgpu
