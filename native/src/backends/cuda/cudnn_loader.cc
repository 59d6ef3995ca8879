// Loads cuDNN with dlopen (see cudnn_loader.h).
#include "backends/cuda/cudnn_loader.h"

#include <glob.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "backends/dl_load.h"

namespace tsgpu {
namespace cudnn {
namespace {

/** The files each pattern names now (glob(3), sorted), for the site-packages of every python3.*. */
void addMatches(const std::string& pattern, std::vector<std::string>* out) {
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) out->push_back(g.gl_pathv[i]);
  }
  globfree(&g);
}

std::vector<std::string> candidates(std::string* places) {
  std::vector<std::string> out;
  if (const char* e = std::getenv("TSGPU_CUDNN_LIBRARY")) {
    if (*e != '\0') out.push_back(e);
  }
  out.push_back("libcudnn.so.9");
  out.push_back("libcudnn.so");
  std::vector<std::string> dirs = {"/usr/local/cuda/lib64"};
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/lib64");
  for (const auto& d : dirs) out.push_back(d + "/libcudnn.so.9");
  std::vector<std::string> sites;
  if (const char* venv = std::getenv("VIRTUAL_ENV")) sites.push_back(std::string(venv) + "/lib/python3*/site-packages");
  if (const char* home = std::getenv("HOME")) sites.push_back(std::string(home) + "/.local/lib/python3*/site-packages");
  sites.push_back("/usr/local/lib/python3*/site-packages");
  sites.push_back("/usr/local/lib/python3*/dist-packages");
  sites.push_back("/usr/lib/python3*/dist-packages");
  sites.push_back("/usr/lib/python3/dist-packages");
  for (const auto& s : sites) {
    addMatches(s + "/nvidia/cudnn/lib/libcudnn.so.9", &out);
    addMatches(s + "/torch/lib/libcudnn.so.9", &out);
  }
  *places = "$TSGPU_CUDNN_LIBRARY, libcudnn.so.9 and libcudnn.so in LD_LIBRARY_PATH, the ld.so cache, /lib and /usr/lib, "
            "/usr/local/cuda/lib64, $CUDA_HOME/lib64, and nvidia/cudnn/lib and torch/lib under";
  for (size_t i = 0; i < sites.size(); ++i) *places += (i == 0 ? " " : ", ") + sites[i];
  return out;
}

Api load() {
  Api a;
  std::string errors, places;
  const std::vector<std::string> names = candidates(&places);
  void* h = dl::openFirst(names, &a.path, &errors);
  if (h == nullptr) {
    a.whyNot = "cuDNN could not be loaded (looked for " + places + "): " + errors;
    return a;
  }
  std::string missing;
  dl::bind(h, "cudnnCreate", &a.create, &missing);
  dl::bind(h, "cudnnDestroy", &a.destroy, &missing);
  dl::bind(h, "cudnnSetStream", &a.setStream, &missing);
  dl::bind(h, "cudnnGetErrorString", &a.errorString, &missing);
  dl::bind(h, "cudnnCreateTensorDescriptor", &a.createTensor, &missing);
  dl::bind(h, "cudnnSetTensor4dDescriptorEx", &a.setTensor4dEx, &missing);
  dl::bind(h, "cudnnDestroyTensorDescriptor", &a.destroyTensor, &missing);
  dl::bind(h, "cudnnCreateFilterDescriptor", &a.createFilter, &missing);
  dl::bind(h, "cudnnSetFilter4dDescriptor", &a.setFilter4d, &missing);
  dl::bind(h, "cudnnDestroyFilterDescriptor", &a.destroyFilter, &missing);
  dl::bind(h, "cudnnCreateConvolutionDescriptor", &a.createConv, &missing);
  dl::bind(h, "cudnnSetConvolution2dDescriptor", &a.setConv2d, &missing);
  dl::bind(h, "cudnnSetConvolutionGroupCount", &a.setConvGroups, &missing);
  dl::bind(h, "cudnnSetConvolutionMathType", &a.setConvMath, &missing);
  dl::bind(h, "cudnnDestroyConvolutionDescriptor", &a.destroyConv, &missing);
  dl::bind(h, "cudnnGetConvolutionForwardAlgorithm_v7", &a.fwdAlgos, &missing);
  dl::bind(h, "cudnnFindConvolutionForwardAlgorithmEx", &a.fwdFind, &missing);
  dl::bind(h, "cudnnGetConvolutionForwardWorkspaceSize", &a.fwdWorkspace, &missing);
  dl::bind(h, "cudnnConvolutionForward", &a.fwd, &missing);
  dl::bind(h, "cudnnGetConvolutionBackwardDataAlgorithm_v7", &a.bwdDataAlgos, &missing);
  dl::bind(h, "cudnnFindConvolutionBackwardDataAlgorithmEx", &a.bwdDataFind, &missing);
  dl::bind(h, "cudnnGetConvolutionBackwardDataWorkspaceSize", &a.bwdDataWorkspace, &missing);
  dl::bind(h, "cudnnConvolutionBackwardData", &a.bwdData, &missing);
  dl::bind(h, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", &a.bwdFilterAlgos, &missing);
  dl::bind(h, "cudnnFindConvolutionBackwardFilterAlgorithmEx", &a.bwdFilterFind, &missing);
  dl::bind(h, "cudnnGetConvolutionBackwardFilterWorkspaceSize", &a.bwdFilterWorkspace, &missing);
  dl::bind(h, "cudnnConvolutionBackwardFilter", &a.bwdFilter, &missing);
  if (!missing.empty()) {
    a.whyNot = a.path + " lacks " + missing;
    return a;
  }
  size_t (*getVersion)() = nullptr;
  std::string optional;
  if (dl::bind(h, "cudnnGetVersion", &getVersion, &optional)) a.version = getVersion();
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
  if (a.errorString != nullptr) return a.errorString(s);
  return "cuDNN status " + std::to_string(s);
}

std::string description() {
  const Api& a = api();
  if (!a.loaded) return a.whyNot;
  const size_t v = a.version;
  return "cuDNN " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) + " (" + a.path + ")";
}

Handle handleFor(int device) {
  const Api& a = api();
  if (!a.loaded) throw std::runtime_error(a.whyNot);
  return gHandles.get(device, [&]() {
    Handle h = nullptr;
    Status s = a.create(&h);
    if (s != 0) throw std::runtime_error("cudnnCreate failed on cuda:" + std::to_string(device) + ": " + statusText(s));
    return h;
  });
}

}  // namespace cudnn
}  // namespace tsgpu
