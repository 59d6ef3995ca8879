// im2col and col2im, the two halves of convolution by GEMM, written once for
// both devices (cpu/im2col.cc, cuda/im2col.cu). Operands are contiguous
// (the TypeScript functions in native/ops/conv.ts pass them so):
//
//   im2col: self [N, C, H, W] -> out [N, C*KH*KW, OH*OW]
//     out[n, (c*KH + ki)*KW + kj, oh*OW + ow] =
//       self[n, c, oh*SH - PH + ki*DH, ow*SW - PW + kj*DW]   (padValue outside the input)
//   col2im: self [N, C*KH*KW, OH*OW] -> out [N, C, H, W], the adjoint of im2col:
//     every element of out is the sum of the columns that im2col copies it to.
//
// OH and OW are given (outputSize), not derived, so that a pool's ceil mode
// (windows that run past the padded edge) is the caller's choice; positions
// outside the input read padValue. col2im gathers for each output element
// (no atomics: the same sums in the same order on both devices).
#pragma once

#include <string>
#include <vector>

#include "base/dtype.h"
#include "base/errors.h"
#include "base/host_device.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** The geometry of one im2col / col2im call. */
struct ColGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;    // the image side [N, C, H, W]
  int64_t kh = 1, kw = 1;                // kernel
  int64_t sh = 1, sw = 1;                // stride
  int64_t ph = 0, pw = 0;                // padding (top/left; the bottom/right is implied by OH, OW)
  int64_t dh = 1, dw = 1;                // dilation
  int64_t oh = 0, ow = 0;                // output positions per dim

  TSGPU_HD int64_t rows() const { return c * kh * kw; }
  TSGPU_HD int64_t cols() const { return oh * ow; }
  /** Elements of the column side [N, C*KH*KW, OH*OW]. */
  TSGPU_HD int64_t colNumel() const { return n * rows() * cols(); }
  /** Elements of the image side [N, C, H, W]. */
  TSGPU_HD int64_t imageNumel() const { return n * c * h * w; }
};

/** Element i of im2col's output (the column side), as an offset into the image or -1 for padding. */
TSGPU_HD int64_t im2colSource(const ColGeometry& g, int64_t i) {
  const int64_t x = i % g.ow;
  int64_t r = i / g.ow;
  const int64_t y = r % g.oh;
  r /= g.oh;
  const int64_t kj = r % g.kw;
  r /= g.kw;
  const int64_t ki = r % g.kh;
  r /= g.kh;  // r = n * C + c
  const int64_t hi = y * g.sh - g.ph + ki * g.dh;
  const int64_t wi = x * g.sw - g.pw + kj * g.dw;
  if (hi < 0 || hi >= g.h || wi < 0 || wi >= g.w) return -1;
  return (r * g.h + hi) * g.w + wi;
}

/** Element i of col2im's output (the image side): the sum of the column elements im2col copies it to. */
template <typename T, typename M>
TSGPU_HD M col2imSum(const ColGeometry& g, const T* col, int64_t i) {
  const int64_t wi = i % g.w;
  int64_t r = i / g.w;
  const int64_t hi = r % g.h;
  r /= g.h;
  const int64_t ci = r % g.c;
  const int64_t ni = r / g.c;
  const T* base = col + ni * g.rows() * g.cols();
  M sum = M(0);
  for (int64_t ki = 0; ki < g.kh; ++ki) {
    const int64_t ty = hi + g.ph - ki * g.dh;
    if (ty < 0 || ty % g.sh != 0) continue;
    const int64_t y = ty / g.sh;
    if (y >= g.oh) continue;
    for (int64_t kj = 0; kj < g.kw; ++kj) {
      const int64_t tx = wi + g.pw - kj * g.dw;
      if (tx < 0 || tx % g.sw != 0) continue;
      const int64_t x = tx / g.sw;
      if (x >= g.ow) continue;
      const int64_t row = (ci * g.kh + ki) * g.kw + kj;
      sum += static_cast<M>(base[row * g.cols() + y * g.ow + x]);
    }
  }
  return sum;
}

namespace colgeom_detail {
inline void pair(const OpCall& call, const char* attr, int64_t minimum, int64_t& a, int64_t& b) {
  const std::vector<int64_t>& v = call.attrInts(attr);
  if (v.size() != 2 || v[0] < minimum || v[1] < minimum)
    throw ArgumentError(std::string(call.name()) + ": expected two integers >= " + std::to_string(minimum) + " for " +
                        attr + ", got " + std::to_string(v.size()) + " values");
  a = v[0];
  b = v[1];
}
inline void expectShape(const OpCall& call, const TensorView& v, const char* name, int64_t d0, int64_t d1, int64_t d2,
                        int64_t d3, int nd) {
  const int64_t want[4] = {d0, d1, d2, d3};
  bool ok = v.ndim == nd && v.isContiguous();
  for (int d = 0; ok && d < nd; ++d) ok = v.sizes[d] == want[d];
  if (!ok)
    throw ArgumentError(std::string(call.name()) + ": expected a contiguous " + std::to_string(nd) +
                        "-D tensor of the call's geometry for " + name);
}
}  // namespace colgeom_detail

/**
 * Reads and checks the attributes and operands of im2col (toColumns) or col2im:
 * kernel, stride, padding, dilation, outputSize (OH OW), and for col2im
 * imageSize (H W).
 */
inline ColGeometry colGeometry(const OpCall& call, bool toColumns) {
  using namespace colgeom_detail;
  ColGeometry g;
  pair(call, "kernel", 1, g.kh, g.kw);
  pair(call, "stride", 1, g.sh, g.sw);
  pair(call, "padding", 0, g.ph, g.pw);
  pair(call, "dilation", 1, g.dh, g.dw);
  pair(call, "outputSize", 0, g.oh, g.ow);
  const TensorView& in = call.in(0);
  const TensorView& out = call.outputs[0];
  if (toColumns) {
    if (in.ndim != 4) throw ArgumentError(std::string(call.name()) + ": expected a 4-D input for self");
    g.n = in.sizes[0];
    g.c = in.sizes[1];
    g.h = in.sizes[2];
    g.w = in.sizes[3];
    expectShape(call, in, "self", g.n, g.c, g.h, g.w, 4);
    expectShape(call, out, "out", g.n, g.rows(), g.cols(), 0, 3);
  } else {
    pair(call, "imageSize", 0, g.h, g.w);
    if (out.ndim != 4) throw ArgumentError(std::string(call.name()) + ": expected a 4-D output for out");
    g.n = out.sizes[0];
    g.c = out.sizes[1];
    expectShape(call, out, "out", g.n, g.c, g.h, g.w, 4);
    expectShape(call, in, "self", g.n, g.rows(), g.cols(), 0, 3);
  }
  if (in.dtype != out.dtype)
    throw ArgumentError(std::string(call.name()) + ": expected dtype " + dtypeName(in.dtype) + " for out, got " +
                        dtypeName(out.dtype));
  return g;
}

}  // namespace ops
}  // namespace tsgpu
