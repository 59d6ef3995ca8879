// Broadcast shapes, expanded strides, iteration plans (merged dims) and the
// walkers that visit them: every element once, at the right offsets.
#include <cstdint>
#include <vector>

#include "../harness.h"
#include "base/errors.h"
#include "ops/common/broadcast.h"
#include "ops/common/offset_calc.h"
#include "ops/common/strided_walker.h"

using namespace tsgpu;
using namespace tsgpu::ops;

TEST(broadcast_shapes_rules_and_errors) {
  CHECK(broadcastShapes(Shape{2, 3}, Shape{3}, "add") == (Shape{2, 3}));
  CHECK(broadcastShapes(Shape{4, 1, 5}, Shape{3, 1}, "add") == (Shape{4, 3, 5}));
  CHECK(broadcastShapes(Shape{}, Shape{2}, "mul") == (Shape{2}));
  CHECK(broadcastShapes(Shape{0, 1}, Shape{1, 4}, "mul") == (Shape{0, 4}));
  CHECK_THROWS(broadcastShapes(Shape{2, 3}, Shape{4}, "add"), ArgumentError,
               "add: shapes [2, 3] and [4] cannot be broadcast");
  CHECK(broadcastShapes(std::vector<Shape>{{3, 1}, {1, 4}, {4}}, "where") == (Shape{3, 4}));
  CHECK_THROWS(broadcastShapes(std::vector<Shape>{{3, 1}, {1, 4}, {5}}, "where"), ArgumentError,
               "where: shapes [1, 4] and [5] cannot be broadcast");
}

TEST(broadcast_expand_strides) {
  CHECK(expandStrides(Shape{3}, Shape{1}, Shape{2, 3}, "add") == (Shape{0, 1}));
  CHECK(expandStrides(Shape{2, 1}, Shape{1, 1}, Shape{2, 5}, "add") == (Shape{1, 0}));
  CHECK(contiguousStrides(Shape{2, 3, 4}) == (Shape{12, 4, 1}));
  CHECK_THROWS(expandStrides(Shape{3}, Shape{1}, Shape{4}, "sub"), ArgumentError, "[3] and [4]");
}

TEST(iter_plan_merges_contiguous_dims) {
  // Two contiguous [2, 3, 4] operands: one flat dim.
  IterPlan p = makeIterPlan(Shape{2, 3, 4}, {contiguousStrides({2, 3, 4}), contiguousStrides({2, 3, 4})});
  CHECK_EQ(p.ndim, 1);
  CHECK_EQ(p.sizes[0], 24);
  CHECK(p.isContiguous());
  // A broadcast row [4] against [2, 3, 4]: the row repeats, so two dims remain.
  p = makeIterPlan(Shape{2, 3, 4}, {contiguousStrides({2, 3, 4}), expandStrides({4}, {1}, {2, 3, 4}, "t")});
  CHECK_EQ(p.ndim, 2);
  CHECK_EQ(p.sizes[0], 4);
  CHECK_EQ(p.sizes[1], 6);
  CHECK_EQ(p.strides[1][1], 0);
  // Size-1 dims disappear; a scalar shape has no dims.
  p = makeIterPlan(Shape{1, 5, 1}, {Shape{5, 1, 1}});
  CHECK_EQ(p.ndim, 1);
  p = makeIterPlan(Shape{}, {Shape{}});
  CHECK_EQ(p.ndim, 0);
  CHECK_EQ(p.numel, 1);
}

namespace {
/** Offsets of operand 1 for every element, by plain index arithmetic on the tensor's own dims. */
std::vector<int64_t> referenceOffsets(const Shape& shape, const Shape& strides) {
  std::vector<int64_t> out;
  const int64_t n = shapeNumel(shape);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, off = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      off += (rem % shape[d]) * strides[d];
      rem /= shape[d];
    }
    out.push_back(off);
  }
  return out;
}
}  // namespace

TEST(walkers_visit_every_element_at_its_offset) {
  // Output contiguous [3, 4, 5]; input a transposed [5, 4, 3] storage read as [3, 4, 5]
  // (strides [1, 3, 12]) broadcast... plus a stretched dim.
  const Shape shape{3, 4, 5};
  const Shape inStrides{1, 0, 12};  // dim 1 broadcast
  const IterPlan p = makeIterPlan(shape, {contiguousStrides(shape), inStrides});
  const std::vector<int64_t> want = referenceOffsets(shape, inStrides);
  // Split the range into uneven chunks, as a thread pool would.
  std::vector<int64_t> got(60, -1);
  const int64_t cuts[] = {0, 7, 8, 31, 60};
  for (int c = 0; c + 1 < 5; ++c)
    walkElements<2>(p, cuts[c], cuts[c + 1], [&](const int64_t* off) { got[off[0]] = off[1]; });
  CHECK(got == want);
  // The CUDA offset calculator gives the same offsets on the host.
  OffsetCalc<2, uint32_t> calc32(p);
  OffsetCalc<2, uint64_t> calc64(p);
  int bad = 0;
  for (uint32_t i = 0; i < 60; ++i) {
    int64_t a[2], b[2];
    calc32.get(i, a);
    calc64.get(i, b);
    if (a[0] != i || a[1] != want[i] || b[1] != want[i]) ++bad;
  }
  CHECK_EQ(bad, 0);
}

TEST(fast_divider_matches_division) {
  const uint32_t divisors[] = {1, 2, 3, 5, 7, 10, 12, 100, 641, 65535, 65536, 1000003, 0x7fffffffu};
  int bad = 0;
  for (uint32_t d : divisors) {
    FastDivider32 div(d);
    for (uint64_t n = 0; n < 5000; ++n)
      if (div.div(static_cast<uint32_t>(n)) != n / d) ++bad;
    for (uint64_t n = 0x7fffffffull - 5000; n <= 0x80001000ull; ++n)
      if (div.div(static_cast<uint32_t>(n)) != n / d) ++bad;
    for (uint64_t n = 0xffffffffull - 3000; n <= 0xffffffffull; ++n)
      if (div.div(static_cast<uint32_t>(n)) != n / d) ++bad;
  }
  CHECK_EQ(bad, 0);
}
