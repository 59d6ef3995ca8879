// cuDNN loaded at run time with dlopen (never linked), so the addon loads
// where it is missing and says where it looked. Plain C++: the few cuDNN types
// the convolutions need are declared here with cuDNN 9's values (its legacy
// convolution API: descriptors, the algorithm finders, forward, backward data,
// backward filter).
//
// Candidates, in order: $TSGPU_CUDNN_LIBRARY; libcudnn.so.9 and libcudnn.so in
// the loader's path (LD_LIBRARY_PATH, the ld.so cache, /lib, /usr/lib);
// /usr/local/cuda/lib64 and $CUDA_HOME/lib64 (the CUDA toolkit); then the
// places pip puts PyTorch's copy (nvidia/cudnn/lib and torch/lib under the
// site-packages of $VIRTUAL_ENV, ~/.local, /usr/local/lib and /usr/lib for
// every python3.*).
#pragma once

#include <cstddef>
#include <string>

namespace tsgpu {
namespace cudnn {

using Handle = void*;            // cudnnHandle_t
using TensorDesc = void*;        // cudnnTensorDescriptor_t
using FilterDesc = void*;        // cudnnFilterDescriptor_t
using ConvDesc = void*;          // cudnnConvolutionDescriptor_t
using Status = int;              // cudnnStatus_t; 0 is CUDNN_STATUS_SUCCESS

constexpr int kFloat = 0, kDouble = 1, kHalf = 2, kBFloat16 = 9;  // cudnnDataType_t
constexpr int kNchw = 0, kNhwc = 1;                               // cudnnTensorFormat_t
constexpr int kCrossCorrelation = 1;                              // cudnnConvolutionMode_t
constexpr int kDefaultMath = 0, kTensorOpMath = 1, kFmaMath = 3;  // cudnnMathType_t
constexpr int kDeterministic = 1;                                 // cudnnDeterminism_t

/** cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t: the three have this one layout. */
struct AlgoPerf {
  int algo;          // the algorithm's enum value
  Status status;     // whether it runs for these descriptors
  float time;        // milliseconds (measured by the Find functions; -1 from the heuristics)
  size_t memory;     // workspace bytes it needs
  int determinism;   // kDeterministic or not
  int mathType;      // the math type it runs with
  int reserved[3];
};

struct Api {
  bool loaded = false;
  std::string path;     // the file that loaded
  size_t version = 0;   // cudnnGetVersion(): major*10000 + minor*100 + patch for cuDNN 9
  std::string whyNot;   // when !loaded: every place looked and the loader's errors, or the missing symbols

  Status (*create)(Handle*) = nullptr;
  Status (*destroy)(Handle) = nullptr;
  Status (*setStream)(Handle, void* stream) = nullptr;
  const char* (*errorString)(Status) = nullptr;

  Status (*createTensor)(TensorDesc*) = nullptr;
  Status (*setTensor4dEx)(TensorDesc, int dataType, int n, int c, int h, int w, int ns, int cs, int hs, int ws) = nullptr;
  Status (*destroyTensor)(TensorDesc) = nullptr;
  Status (*createFilter)(FilterDesc*) = nullptr;
  Status (*setFilter4d)(FilterDesc, int dataType, int format, int k, int c, int h, int w) = nullptr;
  Status (*destroyFilter)(FilterDesc) = nullptr;
  Status (*createConv)(ConvDesc*) = nullptr;
  Status (*setConv2d)(ConvDesc, int padH, int padW, int u, int v, int dilH, int dilW, int mode, int computeType) = nullptr;
  Status (*setConvGroups)(ConvDesc, int groups) = nullptr;
  Status (*setConvMath)(ConvDesc, int mathType) = nullptr;
  Status (*destroyConv)(ConvDesc) = nullptr;

  // Forward: y = conv(x, w).
  Status (*fwdAlgos)(Handle, TensorDesc x, FilterDesc w, ConvDesc, TensorDesc y, int requested, int* returned, AlgoPerf*) = nullptr;
  Status (*fwdFind)(Handle, TensorDesc x, const void*, FilterDesc w, const void*, ConvDesc, TensorDesc y, void*, int requested,
                    int* returned, AlgoPerf*, void* work, size_t workBytes) = nullptr;
  Status (*fwdWorkspace)(Handle, TensorDesc x, FilterDesc w, ConvDesc, TensorDesc y, int algo, size_t*) = nullptr;
  Status (*fwd)(Handle, const void* alpha, TensorDesc x, const void*, FilterDesc w, const void*, ConvDesc, int algo, void* work,
                size_t workBytes, const void* beta, TensorDesc y, void*) = nullptr;
  // Backward data: dx from dy and w.
  Status (*bwdDataAlgos)(Handle, FilterDesc w, TensorDesc dy, ConvDesc, TensorDesc dx, int requested, int* returned, AlgoPerf*) = nullptr;
  Status (*bwdDataFind)(Handle, FilterDesc w, const void*, TensorDesc dy, const void*, ConvDesc, TensorDesc dx, void*, int requested,
                        int* returned, AlgoPerf*, void* work, size_t workBytes) = nullptr;
  Status (*bwdDataWorkspace)(Handle, FilterDesc w, TensorDesc dy, ConvDesc, TensorDesc dx, int algo, size_t*) = nullptr;
  Status (*bwdData)(Handle, const void* alpha, FilterDesc w, const void*, TensorDesc dy, const void*, ConvDesc, int algo, void* work,
                    size_t workBytes, const void* beta, TensorDesc dx, void*) = nullptr;
  // Backward filter: dw from x and dy.
  Status (*bwdFilterAlgos)(Handle, TensorDesc x, TensorDesc dy, ConvDesc, FilterDesc dw, int requested, int* returned, AlgoPerf*) = nullptr;
  Status (*bwdFilterFind)(Handle, TensorDesc x, const void*, TensorDesc dy, const void*, ConvDesc, FilterDesc dw, void*, int requested,
                          int* returned, AlgoPerf*, void* work, size_t workBytes) = nullptr;
  Status (*bwdFilterWorkspace)(Handle, TensorDesc x, TensorDesc dy, ConvDesc, FilterDesc dw, int algo, size_t*) = nullptr;
  Status (*bwdFilter)(Handle, const void* alpha, TensorDesc x, const void*, TensorDesc dy, const void*, ConvDesc, int algo, void* work,
                      size_t workBytes, const void* beta, FilterDesc dw, void*) = nullptr;
};

/** cuDNN, loaded on first call (thread-safe); check `loaded` and `whyNot`. */
const Api& api();

/** The handle for CUDA device `device` (created on first use, with the current device set to it). Throws when cuDNN did not load. */
Handle handleFor(int device);

/** "CUDNN_STATUS_…" text for s (cudnnGetErrorString's), or the number when cuDNN gave none. */
std::string statusText(Status s);

/** One line for users: "cuDNN 9.14.0 (/usr/lib/…/libcudnn.so.9)", or why it is not there. */
std::string description();

}  // namespace cudnn
}  // namespace tsgpu
