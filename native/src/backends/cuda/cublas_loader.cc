// Loads cuBLAS with dlopen (see cublas_loader.h).
#include "backends/cuda/cublas_loader.h"

#include "backends/dl_load.h"

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace tsgpu {
namespace cublas {
namespace {

std::vector<std::string> candidates(const char* env, const char* base) {
  std::vector<std::string> out;
  if (const char* e = std::getenv(env)) {
    if (*e != '\0') out.push_back(e);
  }
  for (const char* v : {".so.13", ".so.12", ".so"}) out.push_back(std::string(base) + v);
  std::vector<std::string> dirs = {"/usr/local/cuda/lib64"};
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/lib64");
  for (const auto& d : dirs) out.push_back(d + "/" + base + ".so.13");
  return out;
}

Api load() {
  Api a;
  std::string errors;
  // cuBLASLt first: libcublas needs it, and a failure here says why cuBLAS will not load.
  std::string ltErrors;
  if (void* lt = dl::openFirst(candidates("TSGPU_CUBLASLT_LIBRARY", "libcublasLt"), &a.ltPath, &ltErrors)) (void)lt;
  void* h = dl::openFirst(candidates("TSGPU_CUBLAS_LIBRARY", "libcublas"), &a.path, &errors);
  if (h == nullptr) {
    a.whyNot = "cuBLAS could not be loaded (searched LD_LIBRARY_PATH, the ld.so cache, /lib, /usr/lib, "
               "/usr/local/cuda/lib64 and $CUDA_HOME/lib64): " + errors;
    return a;
  }
  std::string missing;
  dl::bind(h, "cublasCreate_v2", &a.create, &missing, "cublasCreate");
  dl::bind(h, "cublasDestroy_v2", &a.destroy, &missing, "cublasDestroy");
  dl::bind(h, "cublasSetStream_v2", &a.setStream, &missing, "cublasSetStream");
  dl::bind(h, "cublasSetMathMode", &a.setMathMode, &missing);
  dl::bind(h, "cublasGemmEx", &a.gemmEx, &missing);
  dl::bind(h, "cublasGemmStridedBatchedEx", &a.gemmStridedBatchedEx, &missing);
  std::string optional;
  dl::bind(h, "cublasGetStatusString", &a.statusString, &optional);
  if (!missing.empty()) {
    a.whyNot = a.path + " lacks " + missing;
    return a;
  }
  int (*getProperty)(int, int*) = nullptr;
  if (dl::bind(h, "cublasGetProperty", &getProperty, &optional)) {
    int major = 0, minor = 0, patch = 0;
    getProperty(0, &major);
    getProperty(1, &minor);
    getProperty(2, &patch);
    a.version = major * 10000 + minor * 100 + patch;
  }
  a.loaded = true;
  return a;
}

dl::PerDevice<Handle> gHandles;

}  // namespace

const Api& api() {
  static const Api a = load();
  return a;
}

std::string statusText(Status s) {
  const Api& a = api();
  if (a.statusString != nullptr) return a.statusString(s);
  return "cuBLAS status " + std::to_string(s);
}

Handle handleFor(int device) {
  const Api& a = api();
  if (!a.loaded) throw std::runtime_error(a.whyNot);
  return gHandles.get(device, [&]() {
    Handle h = nullptr;
    Status s = a.create(&h);
    if (s != 0) throw std::runtime_error("cublasCreate failed on cuda:" + std::to_string(device) + ": " + statusText(s));
    a.setMathMode(h, kDefaultMath);
    return h;
  });
}

}  // namespace cublas
}  // namespace tsgpu
