// Random gemm problems with a float64 reference, for the CPU and CUDA gemm tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ops/cpu/gemm_internal.h"
#include "ops/gemm.h"

namespace gemmtest {

using tsgpu::gemm::Matrix;
using tsgpu::gemm::Problem;
using tsgpu::gemm::ScalarType;

/** How an operand is stored: row-major, column-major (a transposed view), or row-major with padded rows. */
enum class Layout { kRowMajor, kColMajor, kPadded };

struct Case {
  ScalarType type = ScalarType::kFloat32;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  bool broadcastA = false, broadcastB = false;  // batch stride 0
  double alpha = 1.0, beta = 0.0;
  bool nanInC = false;  // C starts as NaN (beta must be 0 for a finite result)
  bool tf32 = false;    // float32 on CUDA with TF32 allowed (10-bit mantissa inputs)
  int seed = 0;

  std::string describe() const {
    std::ostringstream os;
    os << tsgpu::gemm::scalarTypeName(type) << " batch " << batch << " m " << m << " n " << n << " k " << k
       << " layouts " << int(la) << int(lb) << int(lc) << " bcast " << broadcastA << broadcastB << " alpha " << alpha
       << " beta " << beta;
    return os.str();
  }
};

/** An operand's storage as float64 values (already rounded to the dtype) plus its strides. */
struct Operand {
  int64_t rows = 0, cols = 0, batches = 1;
  Matrix m;
  std::vector<double> values;  // batches × rows × cols, logical order
  std::vector<unsigned char> bytes;

  void layout(Layout l, int64_t r, int64_t c, int64_t b) {
    rows = r;
    cols = c;
    batches = b;
    int64_t per = r * c;
    if (l == Layout::kRowMajor) {
      m.rowStride = c;
      m.colStride = 1;
    } else if (l == Layout::kColMajor) {
      m.rowStride = 1;
      m.colStride = r;
    } else {
      m.rowStride = c + 3;
      m.colStride = 1;
      per = r * (c + 3);
    }
    m.batchStride = per;
  }
  int64_t offset(int64_t b, int64_t i, int64_t j) const { return b * m.batchStride + i * m.rowStride + j * m.colStride; }
};

inline int64_t storageElements(const Operand& o) { return o.batches * o.m.batchStride + 8; }

/** Writes value v (rounded to t) at element index e of bytes; returns the rounded value. */
inline double store(ScalarType t, std::vector<unsigned char>& bytes, int64_t e, double v) {
  const auto& k = tsgpu::gemm::blockedKernels();
  switch (t) {
    case ScalarType::kFloat64: std::memcpy(&bytes[e * 8], &v, 8); return v;
    case ScalarType::kFloat32: {
      float f = static_cast<float>(v);
      std::memcpy(&bytes[e * 4], &f, 4);
      return f;
    }
    default: {
      float f = static_cast<float>(v), back;
      uint16_t h;
      k.fromFloat(&f, &h, 1, t == ScalarType::kBFloat16);
      k.toFloat(&h, &back, 1, t == ScalarType::kBFloat16);
      std::memcpy(&bytes[e * 2], &h, 2);
      return back;
    }
  }
}

inline double load(ScalarType t, const std::vector<unsigned char>& bytes, int64_t e) {
  const auto& k = tsgpu::gemm::blockedKernels();
  switch (t) {
    case ScalarType::kFloat64: {
      double d;
      std::memcpy(&d, &bytes[e * 8], 8);
      return d;
    }
    case ScalarType::kFloat32: {
      float f;
      std::memcpy(&f, &bytes[e * 4], 4);
      return f;
    }
    default: {
      uint16_t h;
      float f;
      std::memcpy(&h, &bytes[e * 2], 2);
      k.toFloat(&h, &f, 1, t == ScalarType::kBFloat16);
      return f;
    }
  }
}

/** Host operands of a case with random values, and the reference result. */
class Operands {
 public:
  explicit Operands(const Case& c) : c_(c) {
    std::mt19937 rng(static_cast<unsigned>(c.seed * 7919 + 17));
    std::normal_distribution<double> dist(0.0, 1.0);
    a_.layout(c.la, c.m, c.k, c.broadcastA ? 1 : c.batch);
    b_.layout(c.lb, c.k, c.n, c.broadcastB ? 1 : c.batch);
    c0_.layout(c.lc, c.m, c.n, c.batch);
    for (Operand* o : {&a_, &b_, &c0_}) {
      o->bytes.assign(static_cast<size_t>(storageElements(*o) * tsgpu::gemm::scalarTypeBytes(c.type)), 0);
      o->values.assign(static_cast<size_t>(o->batches * o->rows * o->cols), 0.0);
      for (int64_t bi = 0; bi < o->batches; ++bi)
        for (int64_t i = 0; i < o->rows; ++i)
          for (int64_t j = 0; j < o->cols; ++j) {
            double v = (o == &c0_ && c.nanInC) ? std::nan("") : dist(rng);
            o->values[(bi * o->rows + i) * o->cols + j] = store(c.type, o->bytes, o->offset(bi, i, j), v);
          }
    }
    a_.m.batchStride = c.broadcastA ? 0 : a_.m.batchStride;
    b_.m.batchStride = c.broadcastB ? 0 : b_.m.batchStride;
  }

  /** The problem over the host buffers (the CUDA tests copy the bytes and rebase the pointers). */
  Problem problem() {
    Problem p;
    p.type = c_.type;
    p.batch = c_.batch;
    p.m = c_.m;
    p.n = c_.n;
    p.k = c_.k;
    p.alpha = c_.alpha;
    p.allowTf32 = c_.tf32;
    p.beta = c_.beta;
    p.a = a_.m;
    p.a.data = a_.bytes.data();
    p.b = b_.m;
    p.b.data = b_.bytes.data();
    p.c = c0_.m;
    p.c.data = c0_.bytes.data();
    return p;
  }

  std::vector<unsigned char>& bytesOf(char which) { return which == 'a' ? a_.bytes : which == 'b' ? b_.bytes : c0_.bytes; }

  /** Compares C's bytes with the float64 reference; returns "" or the first mismatch. */
  std::string compare() const {
    const double tol = c_.type == ScalarType::kFloat64 ? 1e-12
                       : c_.type == ScalarType::kFloat32 ? (c_.tf32 ? 2e-3 : 2e-6)
                       : c_.type == ScalarType::kFloat16 ? 2e-3
                                                         : 1.6e-2;
    for (int64_t bi = 0; bi < c_.batch; ++bi)
      for (int64_t i = 0; i < c_.m; ++i)
        for (int64_t j = 0; j < c_.n; ++j) {
          double ref = 0.0, mag = 0.0;
          for (int64_t p = 0; p < c_.k; ++p) {
            const double x = a_.values[((c_.broadcastA ? 0 : bi) * c_.m + i) * c_.k + p];
            const double y = b_.values[((c_.broadcastB ? 0 : bi) * c_.k + p) * c_.n + j];
            ref += x * y;
            mag += std::fabs(x * y);
          }
          const double c0 = c0_.values[(bi * c_.m + i) * c_.n + j];
          ref *= c_.alpha;
          mag *= std::fabs(c_.alpha);
          if (c_.beta != 0.0) {
            ref += c_.beta * c0;
            mag += std::fabs(c_.beta * c0);
          }
          const double got = load(c_.type, c0_.bytes, c0_.offset(bi, i, j));
          if (!(std::fabs(got - ref) <= tol * (mag + 1.0))) {
            std::ostringstream os;
            os << "C[" << bi << "," << i << "," << j << "] = " << got << ", expected " << ref << " (tolerance "
               << tol * (mag + 1.0) << ")";
            return os.str();
          }
        }
    return "";
  }

 private:
  Case c_;
  Operand a_, b_, c0_;
};

}  // namespace gemmtest
