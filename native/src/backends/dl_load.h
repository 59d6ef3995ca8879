// Loading a shared library at run time (dlopen): the first of several
// candidate names that loads, and its symbols bound by name. Shared by the
// loaders of cuBLAS (backends/cuda/cublas_loader.cc) and cuDNN
// (backends/cuda/cudnn_loader.cc), which never link their libraries, so that
// the addon loads where they are missing and can say where it looked.
#pragma once

#include <dlfcn.h>
#include <link.h>

#include <mutex>
#include <string>
#include <vector>

namespace tsgpu {
namespace dl {

/**
 * Opens the first of `names` that dlopen loads (RTLD_NOW | RTLD_LOCAL) and
 * returns its handle, with the file it resolved to in `*path`. Returns
 * nullptr when none loads; `*errors` then holds the loader's message for
 * each name tried, separated by "; ".
 */
inline void* openFirst(const std::vector<std::string>& names, std::string* path, std::string* errors) {
  for (const auto& name : names) {
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h != nullptr) {
      struct link_map* map = nullptr;
      *path = (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) ? map->l_name : name;
      return h;
    }
    const char* err = dlerror();
    *errors += (errors->empty() ? "" : "; ") + std::string(err ? err : name.c_str());
  }
  return nullptr;
}

/**
 * Binds `symbol` of library `h` to `*out` (or, failing that, `alternative`,
 * e.g. the name without `_v2`). Appends the symbol to `*missing`
 * (comma-separated) and returns false when neither is there.
 */
template <typename F>
bool bind(void* h, const char* symbol, F* out, std::string* missing, const char* alternative = nullptr) {
  *out = reinterpret_cast<F>(dlsym(h, symbol));
  if (*out == nullptr && alternative != nullptr) *out = reinterpret_cast<F>(dlsym(h, alternative));
  if (*out == nullptr) *missing += (missing->empty() ? "" : ", ") + std::string(symbol);
  return *out != nullptr;
}

/**
 * A library's handles, one per CUDA device, each made on first use by `create()` (called with the
 * table's lock held, on the thread that asked first). Thread-safe.
 */
template <typename H>
class PerDevice {
 public:
  template <typename Create>
  H get(int device, Create&& create) {
    std::lock_guard<std::mutex> lk(mutex_);
    if (device >= static_cast<int>(handles_.size())) handles_.resize(static_cast<size_t>(device) + 1, nullptr);
    H& h = handles_[static_cast<size_t>(device)];
    if (h == nullptr) h = create();
    return h;
  }

 private:
  std::mutex mutex_;
  std::vector<H> handles_;
};

}  // namespace dl
}  // namespace tsgpu
