// The CUDA convolutions through cuDNN (kernels in ops/cuda/cudnn_conv.cu, ops
// convolution, convolutionBackwardInput and convolutionBackwardWeight of the
// op list, whose cpu kernels are ops/cpu/convolution.cc): what the binding asks of
// them besides the calls. Host-only header.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tsgpu {
namespace cudnnconv {

/** One remembered algorithm choice (benchmark mode tries once per shape and keeps the fastest, as PyTorch). */
struct Choice {
  std::string pass;     // "forward", "backwardInput" or "backwardWeight"
  std::string key;      // the shapes, strides, dtype and convolution parameters it was chosen for
  int algo = 0;         // cuDNN's algorithm number of that pass
  int mathType = 0;     // cudnnMathType_t it runs with
  size_t workspace = 0; // bytes of workspace it takes from the caching allocator
  float timeMs = -1;    // cuDNN's measured time (benchmark mode), -1 when chosen by its heuristics
  bool benchmarked = false;  // chosen by timing every algorithm (benchmark mode)
  int uses = 0;         // calls that used this choice
};

/** "cuDNN 9.14.0 (/path/libcudnn.so.9)" when it loaded, else why not and where it looked (empty "loaded" says which). */
bool available(std::string* description);

/** The remembered choices, oldest first. */
std::vector<Choice> choices();

/** Forgets every remembered choice (the next call of each shape chooses again). */
void clearChoices();

}  // namespace cudnnconv
}  // namespace tsgpu
