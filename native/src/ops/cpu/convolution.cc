// The convolution ops on cpu (convolution, convolutionBackwardInput,
// convolutionBackwardWeight of the op list): direct loops, the reference that
// the CUDA (cuDNN) kernels are tested against. conv2d on cpu takes the im2col
// and matmul path, which is faster; these run where the ops are called
// directly (tests, gradcheck). Operands are read through their strides; sums
// accumulate in float64 for float64, else in float32 (OpMathType).
//
// Geometry: input x [N, C, H, W], weight w [O, C/G, KH, KW], output y
// [N, O, OH, OW]; y[n, o, i, j] = Σ_{c, a, b} x[n, g C/G + c, i s0 - p0 + a d0,
// j s1 - p1 + b d1] · w[o, c, a, b], with g = o / (O/G) and taps outside x zero.
#include <algorithm>
#include <string>
#include <vector>

#include "base/errors.h"
#include "ops/common/dispatch.h"
#include "runtime/op_registry.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

struct ConvGeometry {
  int64_t n, c, h, w, o, kh, kw, oh, ow, groups;
  int64_t s0, s1, p0, p1, d0, d1;
  int64_t cg() const { return c / groups; }  // input channels per group
  int64_t og() const { return o / groups; }  // output channels per group
};

/** Strides of a 4-D view. */
struct Strides4 {
  int64_t a, b, c, d;
  explicit Strides4(const TensorView& v) : a(v.strides[0]), b(v.strides[1]), c(v.strides[2]), d(v.strides[3]) {}
  int64_t at(int64_t i, int64_t j, int64_t k, int64_t l) const { return i * a + j * b + k * c + l * d; }
};

/** The geometry from x, w, y (forward terms), checked against the attributes. */
ConvGeometry geometry(const OpCall& call, const TensorView& x, const TensorView& w, const TensorView& y) {
  if (x.ndim != 4 || w.ndim != 4 || y.ndim != 4) throw ArgumentError(std::string(call.name()) + ": expected 4-D operands");
  const auto& s = call.attrInts("stride");
  const auto& p = call.attrInts("padding");
  const auto& d = call.attrInts("dilation");
  if (s.size() != 2 || p.size() != 2 || d.size() != 2) {
    throw ArgumentError(std::string(call.name()) + ": expected two values each for stride, padding and dilation");
  }
  ConvGeometry g{x.sizes[0], x.sizes[1], x.sizes[2], x.sizes[3], w.sizes[0], w.sizes[2], w.sizes[3], y.sizes[2], y.sizes[3],
                 call.attrInt("groups"), s[0], s[1], p[0], p[1], d[0], d[1]};
  const bool ok = g.groups > 0 && g.c % g.groups == 0 && g.o % g.groups == 0 && w.sizes[1] == g.cg() && y.sizes[0] == g.n &&
                  y.sizes[1] == g.o && g.s0 > 0 && g.s1 > 0 && g.d0 > 0 && g.d1 > 0 &&
                  g.oh == (g.h + 2 * g.p0 - g.d0 * (g.kh - 1) - 1) / g.s0 + 1 && g.ow == (g.w + 2 * g.p1 - g.d1 * (g.kw - 1) - 1) / g.s1 + 1;
  if (!ok) throw ArgumentError(std::string(call.name()) + ": the input, weight and output shapes do not make one convolution");
  return g;
}

/** Calls f(n, o, i, j, c, a, b, xi, xj) for every tap inside x of output element (n, o, i, j). */
template <typename F>
inline void forTaps(const ConvGeometry& g, int64_t o, int64_t i, int64_t j, F&& f) {
  const int64_t c0 = (o / g.og()) * g.cg();
  for (int64_t c = 0; c < g.cg(); ++c) {
    for (int64_t a = 0; a < g.kh; ++a) {
      const int64_t xi = i * g.s0 - g.p0 + a * g.d0;
      if (xi < 0 || xi >= g.h) continue;
      for (int64_t b = 0; b < g.kw; ++b) {
        const int64_t xj = j * g.s1 - g.p1 + b * g.d1;
        if (xj < 0 || xj >= g.w) continue;
        f(c0 + c, c, a, b, xi, xj);
      }
    }
  }
}

void forwardCpu(OpCall& call) {
  const TensorView &x = call.in(0), &w = call.in(1);
  TensorView& y = call.out(0);
  const ConvGeometry g = geometry(call, x, w, y);
  dispatchDtype<kFloatDtypes>(x.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = OpMathType<T>;
    const T* xp = x.template data<T>();
    const T* wp = w.template data<T>();
    T* yp = y.template data<T>();
    const Strides4 xs(x), ws(w), ys(y);
    parallel_for(0, g.n * g.o, 1, [&](int64_t r0, int64_t r1) {
      call.checkInterrupt();
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t n = r / g.o, o = r % g.o;
        for (int64_t i = 0; i < g.oh; ++i) {
          for (int64_t j = 0; j < g.ow; ++j) {
            M acc = 0;
            forTaps(g, o, i, j, [&](int64_t xc, int64_t c, int64_t a, int64_t b, int64_t xi, int64_t xj) {
              acc += static_cast<M>(xp[xs.at(n, xc, xi, xj)]) * static_cast<M>(wp[ws.at(o, c, a, b)]);
            });
            yp[ys.at(n, o, i, j)] = static_cast<T>(acc);
          }
        }
      }
    });
  });
}

/** dx = the adjoint of the forward in x: each tap's dy · w summed into the x element it read (per image, no races). */
void backwardInputCpu(OpCall& call) {
  const TensorView &dy = call.in(0), &w = call.in(1);
  TensorView& dx = call.out(0);
  const ConvGeometry g = geometry(call, dx, w, dy);
  dispatchDtype<kFloatDtypes>(dy.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = OpMathType<T>;
    const T* dyp = dy.template data<T>();
    const T* wp = w.template data<T>();
    T* dxp = dx.template data<T>();
    const Strides4 dys(dy), ws(w), dxs(dx);
    parallel_for(0, g.n, 1, [&](int64_t n0, int64_t n1) {
      std::vector<M> acc(static_cast<size_t>(g.c * g.h * g.w));
      for (int64_t n = n0; n < n1; ++n) {
        call.checkInterrupt();
        std::fill(acc.begin(), acc.end(), M(0));
        for (int64_t o = 0; o < g.o; ++o) {
          for (int64_t i = 0; i < g.oh; ++i) {
            for (int64_t j = 0; j < g.ow; ++j) {
              const M d = static_cast<M>(dyp[dys.at(n, o, i, j)]);
              forTaps(g, o, i, j, [&](int64_t xc, int64_t c, int64_t a, int64_t b, int64_t xi, int64_t xj) {
                acc[static_cast<size_t>((xc * g.h + xi) * g.w + xj)] += d * static_cast<M>(wp[ws.at(o, c, a, b)]);
              });
            }
          }
        }
        for (int64_t c = 0; c < g.c; ++c)
          for (int64_t i = 0; i < g.h; ++i)
            for (int64_t j = 0; j < g.w; ++j) dxp[dxs.at(n, c, i, j)] = static_cast<T>(acc[static_cast<size_t>((c * g.h + i) * g.w + j)]);
      }
    });
  });
}

/** dw[o, c, a, b] = Σ over images and output positions of dy · the x element that tap read. */
void backwardWeightCpu(OpCall& call) {
  const TensorView &dy = call.in(0), &x = call.in(1);
  TensorView& dw = call.out(0);
  const ConvGeometry g = geometry(call, x, dw, dy);
  dispatchDtype<kFloatDtypes>(dy.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = OpMathType<T>;
    const T* dyp = dy.template data<T>();
    const T* xp = x.template data<T>();
    T* dwp = dw.template data<T>();
    const Strides4 dys(dy), xs(x), dws(dw);
    parallel_for(0, g.o, 1, [&](int64_t o0, int64_t o1) {
      std::vector<M> acc(static_cast<size_t>(g.cg() * g.kh * g.kw));
      for (int64_t o = o0; o < o1; ++o) {
        call.checkInterrupt();
        std::fill(acc.begin(), acc.end(), M(0));
        for (int64_t n = 0; n < g.n; ++n) {
          for (int64_t i = 0; i < g.oh; ++i) {
            for (int64_t j = 0; j < g.ow; ++j) {
              const M d = static_cast<M>(dyp[dys.at(n, o, i, j)]);
              forTaps(g, o, i, j, [&](int64_t xc, int64_t c, int64_t a, int64_t b, int64_t xi, int64_t xj) {
                acc[static_cast<size_t>((c * g.kh + a) * g.kw + b)] += d * static_cast<M>(xp[xs.at(n, xc, xi, xj)]);
              });
            }
          }
        }
        for (int64_t c = 0; c < g.cg(); ++c)
          for (int64_t a = 0; a < g.kh; ++a)
            for (int64_t b = 0; b < g.kw; ++b) dwp[dws.at(o, c, a, b)] = static_cast<T>(acc[static_cast<size_t>((c * g.kh + a) * g.kw + b)]);
      }
    });
  });
}

}  // namespace
}  // namespace ops

TSGPU_REGISTER_KERNEL(convolution, kCpu, ops::forwardCpu);
TSGPU_REGISTER_KERNEL(convolutionBackwardInput, kCpu, ops::backwardInputCpu);
TSGPU_REGISTER_KERNEL(convolutionBackwardWeight, kCpu, ops::backwardWeightCpu);

}  // namespace tsgpu
