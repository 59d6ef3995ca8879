// The CUDA kernels of the fused cross entropy, the streaming softmax and the
// multi-tensor optimizer updates, built as a PyTorch extension
// (bench/cuda_rows_check.py): on a GPU machine without Node.js this checks
// them against PyTorch's own ops on the same tensors and times both in one
// process. The kernels are the runtime's (loss_ops.cu, optim_ops.cu and
// softmax_stream.cuh are included, their registration left out); only the
// glue from torch tensors to their arguments is written here.
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

#include "runtime/op_registry.h"
#undef TSGPU_REGISTER_KERNEL
#define TSGPU_REGISTER_KERNEL(op, kind, fn) static_assert(true, "")

#include "ops/cuda/loss_ops.cu"
#include "ops/cuda/optim_ops.cu"
#include "ops/cuda/softmax_stream.cuh"

namespace tsgpu {
// The kernels name their op only in error messages; this harness has no op table.
const OpInfo& opInfo(OpId) {
  static OpInfo info{};
  info.name = "cuda_rows_ext";
  return info;
}
}  // namespace tsgpu

namespace {

using namespace tsgpu;
using namespace tsgpu::ops;

OpCall callOnStream() {
  OpCall call;
  call.stream = c10::cuda::getCurrentCUDAStream().stream();
  return call;
}

template <typename F>
void withType(const torch::Tensor& t, F&& f) {
  switch (t.scalar_type()) {
    case torch::kFloat: return f(TypeTag<float>{});
    case torch::kDouble: return f(TypeTag<double>{});
    case torch::kHalf: return f(TypeTag<Half>{});
    case torch::kBFloat16: return f(TypeTag<BFloat16>{});
    default: TORCH_CHECK(false, "unsupported dtype");
  }
}

/** (loss [N], lse [N]) of logits x [N, C] at targets [N]. */
std::vector<torch::Tensor> ceForward(torch::Tensor x, torch::Tensor target, c10::optional<torch::Tensor> weight, int64_t ignoreIndex, double smoothing) {
  const auto acc = x.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat;
  auto loss = torch::empty({x.size(0)}, x.options().dtype(acc));
  auto lse = torch::empty({x.size(0)}, x.options().dtype(acc));
  withType(x, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = LossAcc<T>;
    CeArgs<T> a;
    a.rows = x.size(0);
    a.classes = x.size(1);
    a.x = reinterpret_cast<const T*>(x.data_ptr());
    a.target = target.data_ptr<int64_t>();
    a.weight = weight ? reinterpret_cast<const T*>(weight->data_ptr()) : nullptr;
    a.loss = reinterpret_cast<A*>(loss.data_ptr());
    a.lse = reinterpret_cast<A*>(lse.data_ptr());
    a.ignoreIndex = ignoreIndex;
    a.smoothing = static_cast<A>(smoothing);
    OpCall call = callOnStream();
    CudaLoss::crossEntropy<T>(call, a);
  });
  return {loss, lse};
}

torch::Tensor ceBackward(torch::Tensor gradLoss, torch::Tensor x, torch::Tensor target, torch::Tensor lse, c10::optional<torch::Tensor> weight,
                         int64_t ignoreIndex, double smoothing) {
  auto out = torch::empty_like(x);
  withType(x, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = LossAcc<T>;
    CeArgs<T> a;
    a.rows = x.size(0);
    a.classes = x.size(1);
    a.x = reinterpret_cast<const T*>(x.data_ptr());
    a.target = target.data_ptr<int64_t>();
    a.weight = weight ? reinterpret_cast<const T*>(weight->data_ptr()) : nullptr;
    a.lse = reinterpret_cast<A*>(lse.data_ptr());
    a.ignoreIndex = ignoreIndex;
    a.smoothing = static_cast<A>(smoothing);
    OpCall call = callOnStream();
    CudaLoss::crossEntropyGrad<T>(call, a, reinterpret_cast<const A*>(gradLoss.data_ptr()), reinterpret_cast<T*>(out.data_ptr()));
  });
  return out;
}

struct DenseRows {
  int64_t len;
  __device__ void get(uint32_t r, int64_t* off) const { off[0] = off[1] = static_cast<int64_t>(r) * len; }
};

torch::Tensor softmaxForward(torch::Tensor x, bool log) {
  auto out = torch::empty_like(x);
  const int64_t rows = x.size(0), len = x.size(1);
  withType(x, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int V = tsgpu::ops::cuda::VecWidth<T>::value;
    const auto stream = c10::cuda::getCurrentCUDAStream().stream();
    const T* in = reinterpret_cast<const T*>(x.data_ptr());
    T* o = reinterpret_cast<T*>(out.data_ptr());
    const unsigned blocks = tsgpu::ops::cuda::blockRowBlocks(rows);
    const bool vec = len % V == 0;
    if (log && vec) tsgpu::ops::cuda::softmaxStreamRows<T, true, V><<<blocks, tsgpu::ops::cuda::streamThreads(len, V), 0, stream>>>(in, o, len, rows, DenseRows{len});
    else if (log) tsgpu::ops::cuda::softmaxStreamRows<T, true, 1><<<blocks, tsgpu::ops::cuda::streamThreads(len, 1), 0, stream>>>(in, o, len, rows, DenseRows{len});
    else if (vec) tsgpu::ops::cuda::softmaxStreamRows<T, false, V><<<blocks, tsgpu::ops::cuda::streamThreads(len, V), 0, stream>>>(in, o, len, rows, DenseRows{len});
    else tsgpu::ops::cuda::softmaxStreamRows<T, false, 1><<<blocks, tsgpu::ops::cuda::streamThreads(len, 1), 0, stream>>>(in, o, len, rows, DenseRows{len});
  });
  return out;
}

torch::Tensor softmaxBackward(torch::Tensor grad, torch::Tensor y, bool log) {
  auto out = torch::empty_like(y);
  withType(y, [&](auto tag) {
    using T = typename decltype(tag)::type;
    OpCall call = callOnStream();
    const T* g = reinterpret_cast<const T*>(grad.data_ptr());
    const T* yy = reinterpret_cast<const T*>(y.data_ptr());
    T* o = reinterpret_cast<T*>(out.data_ptr());
    if (log) CudaLoss::softmaxGrad<T, true>(call, y.size(0), y.size(1), g, yy, o);
    else CudaLoss::softmaxGrad<T, false>(call, y.size(0), y.size(1), g, yy, o);
  });
  return out;
}

/** lists: params, grads, exp_avgs, exp_avg_sqs (, max_exp_avg_sqs), updated in place. */
void adamStep(std::vector<std::vector<torch::Tensor>> lists, double lr, double beta1, double beta2, double eps, double weightDecay, double step,
              bool amsgrad, bool maximize, bool decoupled) {
  withType(lists[0][0], [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = OptimAcc<T>;
    AdamFunctor<A> f;
    f.lr = static_cast<A>(lr);
    f.beta1 = static_cast<A>(beta1);
    f.beta2 = static_cast<A>(beta2);
    f.eps = static_cast<A>(eps);
    f.weightDecay = static_cast<A>(weightDecay);
    f.stepSize = static_cast<A>(lr / (1 - std::pow(beta1, step)));
    f.bc2Sqrt = static_cast<A>(std::sqrt(1 - std::pow(beta2, step)));
    f.amsgrad = amsgrad;
    f.maximize = maximize;
    f.decoupled = decoupled;
    OpCall call = callOnStream();
    const auto fill = [&](auto& mt) {
      for (auto& p : lists[0]) mt.numel.push_back(p.numel());
      for (size_t l = 0; l < lists.size(); ++l)
        for (auto& t : lists[l]) mt.lists[l].push_back(reinterpret_cast<T*>(t.data_ptr()));
    };
    if (amsgrad) {
      MultiTensor<T, 5> mt;
      fill(mt);
      CudaOptim::apply<T, 5>(call, mt, f);
    } else {
      MultiTensor<T, 4> mt;
      fill(mt);
      CudaOptim::apply<T, 4>(call, mt, f);
    }
  });
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("ce_forward", &ceForward);
  m.def("ce_backward", &ceBackward);
  m.def("softmax_forward", &softmaxForward);
  m.def("softmax_backward", &softmaxBackward);
  m.def("adam_step", &adamStep);
}
