// conv2d on CUDA through cuDNN (loaded at run time, backends/cuda/cudnn_loader.h):
// the ops convolution, convolutionBackwardInput and convolutionBackwardWeight,
// each one cuDNN call on the device's stream.
//
// Algorithms. Each (pass, shapes, strides, dtype, parameters, deterministic,
// TF32) is decided once and remembered:
//   - benchmark off (the default): cuDNN's heuristics rank the algorithms;
//     the first that runs for these descriptors, is deterministic when that
//     is asked, and whose workspace the caching allocator can give is used;
//   - benchmark on: every algorithm is run once (cudnnFind…AlgorithmEx) with
//     the largest workspace the allocator can give among those they ask for,
//     and the fastest that fits is kept (torch.backends.cudnn.benchmark).
// Workspace memory comes from the device's caching allocator, so it counts
// in memoryAllocated()/memoryReserved() while a call runs and returns to the
// cache after it (stream order makes the reuse safe, as for any block freed
// after a launch). These ops are not queued: they allocate, so they run on
// the calling thread after the launch queue has drained.
//
// Layouts: input and output may be NCHW or NHWC in memory (dense either way);
// the weight is dense NCHW or NHWC, named to cuDNN as that filter format.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cuda/cudnn_loader.h"
#include "base/errors.h"
#include "ops/cudnn_conv.h"
#include "runtime/device_registry.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace cudnnconv {
namespace {

enum class Pass { kForward, kBackwardInput, kBackwardWeight };

const char* passName(Pass p) {
  switch (p) {
    case Pass::kForward: return "forward";
    case Pass::kBackwardInput: return "backwardInput";
    case Pass::kBackwardWeight: return "backwardWeight";
  }
  return "?";
}

/** The convolution's parameters as the op's attributes give them. */
struct Params {
  int stride[2], padding[2], dilation[2], groups;
  bool benchmark, deterministic, allowTf32;
};

Params readParams(const OpCall& call) {
  Params p{};
  const auto& s = call.attrInts("stride");
  const auto& pd = call.attrInts("padding");
  const auto& d = call.attrInts("dilation");
  if (s.size() != 2 || pd.size() != 2 || d.size() != 2) {
    throw ArgumentError(std::string(call.name()) + ": expected two values each for stride, padding and dilation");
  }
  for (int i = 0; i < 2; ++i) {
    p.stride[i] = static_cast<int>(s[i]);
    p.padding[i] = static_cast<int>(pd[i]);
    p.dilation[i] = static_cast<int>(d[i]);
  }
  p.groups = static_cast<int>(call.attrInt("groups"));
  p.benchmark = call.attrBool("benchmark");
  p.deterministic = call.attrBool("deterministic");
  p.allowTf32 = call.attrBool("allowTf32");
  return p;
}

int cudnnType(const OpCall& call, DType t) {
  switch (t) {
    case DType::kFloat32: return cudnn::kFloat;
    case DType::kFloat64: return cudnn::kDouble;
    case DType::kFloat16: return cudnn::kHalf;
    case DType::kBFloat16: return cudnn::kBFloat16;
    default: throw ArgumentError(std::string(call.name()) + ": dtype " + dtypeName(t) + " is not supported by cuDNN");
  }
}

std::string shapeText(const TensorView& v) {
  std::string s = "[";
  for (int d = 0; d < v.ndim; ++d) s += (d ? ", " : "") + std::to_string(v.sizes[d]);
  return s + "]";
}

/** The op's arguments for messages: "input [8, 64, 56, 56] float16, weight [...], stride [1, 1], ...". */
std::string argsText(const OpCall& call, const TensorView& x, const TensorView& w, const Params& p) {
  std::ostringstream o;
  o << "input " << shapeText(x) << " " << dtypeName(x.dtype) << ", weight " << shapeText(w) << ", stride [" << p.stride[0] << ", "
    << p.stride[1] << "], padding [" << p.padding[0] << ", " << p.padding[1] << "], dilation [" << p.dilation[0] << ", "
    << p.dilation[1] << "], groups " << p.groups;
  (void)call;
  return o.str();
}

/** Throws "<op>: cuDNN's <what> failed with CUDNN_STATUS_… (<the op's arguments>)" for a status other than success. */
void check(cudnn::Status s, const char* what, const OpCall& call, const std::string& args) {
  if (s == 0) return;
  throw Error("TSGPU_CUDNN", std::string(call.name()) + ": cuDNN's " + what + " failed with " + cudnn::statusText(s) + " (" + args + ")");
}

/** Whether a 4-D view is dense channels-last (NHWC in memory). */
bool isChannelsLast(const TensorView& v) {
  if (v.ndim != 4) return false;
  const int64_t n = v.sizes[0], c = v.sizes[1], h = v.sizes[2], w = v.sizes[3];
  (void)n;
  auto ok = [&](int d, int64_t want) { return v.sizes[d] == 1 || v.strides[d] == want; };
  return ok(1, 1) && ok(3, c) && ok(2, c * w) && ok(0, c * w * h);
}

/** RAII holders of the three descriptor kinds. */
struct Descriptors {
  const cudnn::Api& a;
  cudnn::TensorDesc x = nullptr, y = nullptr;
  cudnn::FilterDesc w = nullptr;
  cudnn::ConvDesc conv = nullptr;
  explicit Descriptors(const cudnn::Api& api) : a(api) {}
  ~Descriptors() {
    if (x) a.destroyTensor(x);
    if (y) a.destroyTensor(y);
    if (w) a.destroyFilter(w);
    if (conv) a.destroyConv(conv);
  }
};

void setTensor(const cudnn::Api& a, cudnn::TensorDesc d, const TensorView& v, int type, const OpCall& call, const std::string& args) {
  for (int i = 0; i < 4; ++i) {
    if (v.sizes[i] > INT32_MAX || v.strides[i] > INT32_MAX) {
      throw ArgumentError(std::string(call.name()) + ": cuDNN takes sizes and strides below 2^31 (" + args + ")");
    }
  }
  check(a.setTensor4dEx(d, type, static_cast<int>(v.sizes[0]), static_cast<int>(v.sizes[1]), static_cast<int>(v.sizes[2]),
                        static_cast<int>(v.sizes[3]), static_cast<int>(v.strides[0]), static_cast<int>(v.strides[1]),
                        static_cast<int>(v.strides[2]), static_cast<int>(v.strides[3])),
        "cudnnSetTensor4dDescriptorEx", call, args);
}

/** The remembered choices, by key. */
std::mutex gMutex;
std::map<std::string, Choice> gChoices;
std::vector<std::string> gOrder;

std::string keyOf(Pass pass, const TensorView& x, const TensorView& w, const TensorView& y, const Params& p, int device) {
  std::ostringstream o;
  o << passName(pass) << " cuda:" << device << " " << dtypeName(x.dtype) << " x" << shapeText(x) << "/";
  for (int d = 0; d < 4; ++d) o << x.strides[d] << (d < 3 ? "," : "");
  o << " w" << shapeText(w) << (isChannelsLast(w) && !w.isContiguous() ? "nhwc" : "") << " y" << shapeText(y) << "/";
  for (int d = 0; d < 4; ++d) o << y.strides[d] << (d < 3 ? "," : "");
  o << " s" << p.stride[0] << "," << p.stride[1] << " p" << p.padding[0] << "," << p.padding[1] << " d" << p.dilation[0] << ","
    << p.dilation[1] << " g" << p.groups << (p.deterministic ? " det" : "") << (p.allowTf32 ? " tf32" : "")
    << (p.benchmark ? " bench" : "");
  return o.str();
}

/** A block of the caching allocator, returned to it at scope exit. */
struct Workspace {
  CachingAllocator* alloc = nullptr;
  Block* block = nullptr;
  ~Workspace() {
    if (block) alloc->free(block);
  }
  void* ptr() const { return block ? block->ptr : nullptr; }
  size_t size() const { return block ? block->requestedSize : 0; }
};

/** Tries to take `bytes` from the allocator; false when it is out of memory (nothing is held then). */
bool tryTake(Workspace* ws, size_t bytes) {
  if (bytes == 0) return true;
  try {
    ws->block = ws->alloc->malloc(bytes);
    return true;
  } catch (const OutOfMemoryError&) {
    return false;
  }
}

/** Runs one pass: x/w/y are the forward's input, weight and output views (one of them written). */
void runPass(OpCall& call, Pass pass) {
  const cudnn::Api& a = cudnn::api();
  if (!a.loaded) throw Error("TSGPU_CUDNN", std::string(call.name()) + ": " + a.whyNot);
  const Params p = readParams(call);
  // Operands in the forward's terms: x input, w weight, y output (gradOut in the backward passes).
  TensorView x, w, y;
  void* written = nullptr;
  if (pass == Pass::kForward) {
    x = call.in(0), w = call.in(1), y = call.out(0);
    written = y.data();
  } else if (pass == Pass::kBackwardInput) {
    y = call.in(0), w = call.in(1), x = call.out(0);
    written = x.data();
  } else {
    y = call.in(0), x = call.in(1), w = call.out(0);
    written = w.data();
  }
  const std::string args = argsText(call, x, w, p);
  if (x.ndim != 4 || w.ndim != 4 || y.ndim != 4) throw ArgumentError(std::string(call.name()) + ": expected 4-D operands (" + args + ")");
  if (x.dtype != w.dtype || x.dtype != y.dtype) throw ArgumentError(std::string(call.name()) + ": operands of one dtype expected (" + args + ")");
  const bool wNhwc = !w.isContiguous() && isChannelsLast(w);
  if (!w.isContiguous() && !wNhwc) throw ArgumentError(std::string(call.name()) + ": expected a dense NCHW or NHWC weight (" + args + ")");
  if (x.numel() == 0 || y.numel() == 0 || w.numel() == 0) return;

  const int device = call.device.index;
  cudnn::Handle h = cudnn::handleFor(device);
  check(a.setStream(h, call.stream), "cudnnSetStream", call, args);
  const int type = cudnnType(call, x.dtype);
  Descriptors d(a);
  check(a.createTensor(&d.x), "cudnnCreateTensorDescriptor", call, args);
  check(a.createTensor(&d.y), "cudnnCreateTensorDescriptor", call, args);
  check(a.createFilter(&d.w), "cudnnCreateFilterDescriptor", call, args);
  check(a.createConv(&d.conv), "cudnnCreateConvolutionDescriptor", call, args);
  setTensor(a, d.x, x, type, call, args);
  setTensor(a, d.y, y, type, call, args);
  check(a.setFilter4d(d.w, type, wNhwc ? cudnn::kNhwc : cudnn::kNchw, static_cast<int>(w.sizes[0]), static_cast<int>(w.sizes[1]),
                      static_cast<int>(w.sizes[2]), static_cast<int>(w.sizes[3])),
        "cudnnSetFilter4dDescriptor", call, args);
  const int computeType = type == cudnn::kDouble ? cudnn::kDouble : cudnn::kFloat;
  check(a.setConv2d(d.conv, p.padding[0], p.padding[1], p.stride[0], p.stride[1], p.dilation[0], p.dilation[1], cudnn::kCrossCorrelation,
                    computeType),
        "cudnnSetConvolution2dDescriptor", call, args);
  check(a.setConvGroups(d.conv, p.groups), "cudnnSetConvolutionGroupCount", call, args);
  // float32 without TF32 must not use tensor cores; the 16-bit types should; the rest is cuDNN's default.
  const bool noTensorCores = type == cudnn::kFloat && !p.allowTf32;
  const int baseMath = noTensorCores ? cudnn::kFmaMath : (type == cudnn::kHalf || type == cudnn::kBFloat16) ? cudnn::kTensorOpMath : cudnn::kDefaultMath;
  check(a.setConvMath(d.conv, baseMath), "cudnnSetConvolutionMathType", call, args);

  Workspace ws;
  ws.alloc = DeviceRegistry::instance().get(deviceName(call.device)).allocator.get();
  const std::string key = keyOf(pass, x, w, y, p, device);
  Choice choice;
  bool known = false;
  {
    std::lock_guard<std::mutex> lk(gMutex);
    auto it = gChoices.find(key);
    if (it != gChoices.end()) choice = it->second, known = true;
  }
  if (!known) {
    constexpr int kMaxAlgos = 16;
    cudnn::AlgoPerf perf[kMaxAlgos] = {};
    int n = 0;
    // The heuristics' ranking, with each algorithm's workspace.
    if (pass == Pass::kForward) {
      check(a.fwdAlgos(h, d.x, d.w, d.conv, d.y, kMaxAlgos, &n, perf), "cudnnGetConvolutionForwardAlgorithm_v7", call, args);
    } else if (pass == Pass::kBackwardInput) {
      check(a.bwdDataAlgos(h, d.w, d.y, d.conv, d.x, kMaxAlgos, &n, perf), "cudnnGetConvolutionBackwardDataAlgorithm_v7", call, args);
    } else {
      check(a.bwdFilterAlgos(h, d.x, d.y, d.conv, d.w, kMaxAlgos, &n, perf), "cudnnGetConvolutionBackwardFilterAlgorithm_v7", call, args);
    }
    auto usable = [&](const cudnn::AlgoPerf& r) {
      return r.status == 0 && (!p.deterministic || r.determinism == cudnn::kDeterministic);
    };
    if (p.benchmark) {
      // Time every algorithm with the largest workspace the allocator gives among those they ask for.
      std::vector<size_t> sizes;
      for (int i = 0; i < n; ++i) if (usable(perf[i])) sizes.push_back(perf[i].memory);
      std::sort(sizes.rbegin(), sizes.rend());
      for (size_t s : sizes) if (tryTake(&ws, s)) break;
      cudnn::AlgoPerf timed[kMaxAlgos] = {};
      int m = 0;
      if (pass == Pass::kForward) {
        check(a.fwdFind(h, d.x, x.data(), d.w, w.data(), d.conv, d.y, written, kMaxAlgos, &m, timed, ws.ptr(), ws.size()),
              "cudnnFindConvolutionForwardAlgorithmEx", call, args);
      } else if (pass == Pass::kBackwardInput) {
        check(a.bwdDataFind(h, d.w, w.data(), d.y, y.data(), d.conv, d.x, written, kMaxAlgos, &m, timed, ws.ptr(), ws.size()),
              "cudnnFindConvolutionBackwardDataAlgorithmEx", call, args);
      } else {
        check(a.bwdFilterFind(h, d.x, x.data(), d.y, y.data(), d.conv, d.w, written, kMaxAlgos, &m, timed, ws.ptr(), ws.size()),
              "cudnnFindConvolutionBackwardFilterAlgorithmEx", call, args);
      }
      // Find's results come fastest first.
      for (int i = 0; i < m && !known; ++i) {
        if (!usable(timed[i]) || timed[i].memory > ws.size()) continue;
        choice.algo = timed[i].algo, choice.mathType = timed[i].mathType, choice.workspace = timed[i].memory;
        choice.timeMs = timed[i].time, choice.benchmarked = true, known = true;
      }
    } else {
      for (int i = 0; i < n && !known; ++i) {
        if (!usable(perf[i])) continue;
        size_t bytes = 0;
        cudnn::Status s;
        if (pass == Pass::kForward) {
          s = a.fwdWorkspace(h, d.x, d.w, d.conv, d.y, perf[i].algo, &bytes);
        } else if (pass == Pass::kBackwardInput) {
          s = a.bwdDataWorkspace(h, d.w, d.y, d.conv, d.x, perf[i].algo, &bytes);
        } else {
          s = a.bwdFilterWorkspace(h, d.x, d.y, d.conv, d.w, perf[i].algo, &bytes);
        }
        if (s != 0) continue;
        Workspace probe;
        probe.alloc = ws.alloc;
        if (!tryTake(&probe, bytes)) continue;
        choice.algo = perf[i].algo, choice.mathType = perf[i].mathType, choice.workspace = bytes, known = true;
      }
    }
    if (!known) {
      throw Error("TSGPU_CUDNN", std::string(call.name()) + ": cuDNN has no " + (p.deterministic ? "deterministic " : "") +
                                     "algorithm for this convolution whose workspace fits in the memory left (" + args + ")");
    }
    if (noTensorCores) choice.mathType = cudnn::kFmaMath;
    choice.pass = passName(pass);
    choice.key = key;
    std::lock_guard<std::mutex> lk(gMutex);
    if (gChoices.emplace(key, choice).second) gOrder.push_back(key);
  }
  check(a.setConvMath(d.conv, choice.mathType), "cudnnSetConvolutionMathType", call, args);
  if (ws.size() < choice.workspace) {
    if (ws.block) ws.alloc->free(ws.block), ws.block = nullptr;
    ws.block = ws.alloc->malloc(choice.workspace);  // out of memory here is the user's error, with the allocator's numbers
  }
  const float oneF = 1.0f, zeroF = 0.0f;
  const double oneD = 1.0, zeroD = 0.0;
  const void* alpha = type == cudnn::kDouble ? static_cast<const void*>(&oneD) : static_cast<const void*>(&oneF);
  const void* beta = type == cudnn::kDouble ? static_cast<const void*>(&zeroD) : static_cast<const void*>(&zeroF);
  if (pass == Pass::kForward) {
    check(a.fwd(h, alpha, d.x, x.data(), d.w, w.data(), d.conv, choice.algo, ws.ptr(), choice.workspace, beta, d.y, y.data()),
          "cudnnConvolutionForward", call, args);
  } else if (pass == Pass::kBackwardInput) {
    check(a.bwdData(h, alpha, d.w, w.data(), d.y, y.data(), d.conv, choice.algo, ws.ptr(), choice.workspace, beta, d.x, x.data()),
          "cudnnConvolutionBackwardData", call, args);
  } else {
    check(a.bwdFilter(h, alpha, d.x, x.data(), d.y, y.data(), d.conv, choice.algo, ws.ptr(), choice.workspace, beta, d.w, w.data()),
          "cudnnConvolutionBackwardFilter", call, args);
  }
  std::lock_guard<std::mutex> lk(gMutex);
  gChoices[key].uses++;
}

void forwardCuda(OpCall& call) { runPass(call, Pass::kForward); }
void backwardInputCuda(OpCall& call) { runPass(call, Pass::kBackwardInput); }
void backwardWeightCuda(OpCall& call) { runPass(call, Pass::kBackwardWeight); }

}  // namespace

bool available(std::string* description) {
  *description = cudnn::description();
  return cudnn::api().loaded;
}

std::vector<Choice> choices() {
  std::lock_guard<std::mutex> lk(gMutex);
  std::vector<Choice> out;
  for (const auto& k : gOrder) out.push_back(gChoices[k]);
  return out;
}

void clearChoices() {
  std::lock_guard<std::mutex> lk(gMutex);
  gChoices.clear();
  gOrder.clear();
}

}  // namespace cudnnconv

TSGPU_REGISTER_KERNEL(convolution, kCuda, cudnnconv::forwardCuda);
TSGPU_REGISTER_KERNEL(convolutionBackwardInput, kCuda, cudnnconv::backwardInputCuda);
TSGPU_REGISTER_KERNEL(convolutionBackwardWeight, kCuda, cudnnconv::backwardWeightCuda);

}  // namespace tsgpu
