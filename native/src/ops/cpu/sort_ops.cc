// sort / topk on cpu (ops/common/sort_kernels.h): rows split over the thread
// pool; a stable sort of (value, index) pairs, partial for topk; kthvalue and
// the medians by nth_element, in the same order. A long row sorted whole
// (one row of unique, of a flattened sort) is split over the pool itself.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/common/sort_kernels.h"
#include "ops/common/strided_walker.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

/** topk of at most this many (and a row at least 16 times as long) keeps its best k in one pass. */
constexpr int64_t kScanTopK = 32;

/** Rows at least this long of an integer dtype are sorted whole by radix (shorter ones by comparisons). */
constexpr int64_t kRadixMinLen = 1 << 12;

/** Rows at least this long sorted whole are split over the thread pool: pieces sorted in parallel, then merged. */
constexpr int64_t kParallelSortMinLen = 1 << 16;

/**
 * A stable LSD radix sort of n (value, index) pairs by value, ascending or descending (equal values keep
 * their order either way): keys are the distance from the least (or greatest) value, so only the bytes
 * that the range uses take a pass. `tmp` is scratch of n pairs; the result may end in either buffer, and
 * the function returns the one that holds it.
 */
template <typename M>
std::pair<M, int64_t>* radixSortRow(std::pair<M, int64_t>* row, std::pair<M, int64_t>* tmp, int64_t n, bool descending) {
  int64_t least = static_cast<int64_t>(row[0].first), most = least;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t v = static_cast<int64_t>(row[j].first);
    least = v < least ? v : least;
    most = v > most ? v : most;
  }
  const uint64_t lo = static_cast<uint64_t>(least), hi = static_cast<uint64_t>(most);
  const uint64_t range = hi - lo;  // modulo 2^64: the exact distance, also across the sign
  const auto key = [&](M v) {
    const uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(v));
    return descending ? hi - u : u - lo;
  };
  for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += 8) {
    size_t count[257] = {};
    for (int64_t j = 0; j < n; ++j) ++count[((key(row[j].first) >> shift) & 0xff) + 1];
    for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
    for (int64_t j = 0; j < n; ++j) tmp[count[(key(row[j].first) >> shift) & 0xff]++] = row[j];
    std::swap(row, tmp);
  }
  return row;
}

/**
 * Sorts a whole row stably: by radix (integers from kRadixMinLen) or std::stable_sort with `before`. A row
 * from kParallelSortMinLen is cut into one piece per thread, the pieces sorted in parallel and merged
 * pairwise (std::merge takes the left piece first on ties, so the result is stable). Leaves the row in
 * `row`; `tmp` is scratch that is resized to the row when needed.
 */
template <typename M, typename Before>
void sortWholeRow(std::vector<std::pair<M, int64_t>>& row, std::vector<std::pair<M, int64_t>>& tmp, bool descending,
                  const Before& before) {
  using Pair = std::pair<M, int64_t>;
  const int64_t n = static_cast<int64_t>(row.size());
  const bool radix = std::is_integral<M>::value && n >= kRadixMinLen;
  const int64_t pieces = n >= kParallelSortMinLen ? parallelChunkCount(0, n, kParallelSortMinLen / 2) : 1;
  if (!radix && pieces <= 1) {
    std::stable_sort(row.begin(), row.end(), before);
    return;
  }
  tmp.resize(static_cast<size_t>(n));
  std::vector<int64_t> bound(static_cast<size_t>(pieces + 1));
  for (int64_t c = 0; c <= pieces; ++c) bound[c] = n * c / pieces;
  // Each piece sorted in place in `row` (a radix result that ends in tmp is copied back).
  parallel_for(0, pieces, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      Pair* a = row.data() + bound[c];
      const int64_t len = bound[c + 1] - bound[c];
      if (len == 0) continue;
      if (radix && len >= kRadixMinLen) {
        if constexpr (std::is_integral<M>::value) {
          Pair* done = radixSortRow(a, tmp.data() + bound[c], len, descending);
          if (done != a) std::copy(done, done + len, a);
        }
      } else {
        std::stable_sort(a, a + len, before);
      }
    }
  });
  for (int64_t width = 1; width < pieces; width *= 2) {
    const int64_t pairs = (pieces + 2 * width - 1) / (2 * width);
    parallel_for(0, pairs, 1, [&](int64_t q0, int64_t q1) {
      for (int64_t q = q0; q < q1; ++q) {
        const int64_t lo = bound[q * 2 * width], mid = bound[std::min(pieces, q * 2 * width + width)];
        const int64_t hi = bound[std::min(pieces, q * 2 * width + 2 * width)];
        std::merge(row.data() + lo, row.data() + mid, row.data() + mid, row.data() + hi, tmp.data() + lo, before);
      }
    });
    row.swap(tmp);
  }
}

struct CpuSort {
  template <typename T>
  static void sortRows(const OpCall& call, const SortPlan& p, int64_t k, bool descending, T* values, int64_t* indices,
                       const T* self) {
    using M = OpMathType<T>;
    const int64_t grain = p.len >= 4096 ? 1 : 4096 / p.len;
    parallel_for(0, p.rows.numel, grain, [&](int64_t b, int64_t e) {
      call.checkInterrupt();
      std::vector<std::pair<M, int64_t>> row(static_cast<size_t>(p.len)), tmp;
      const auto before = [&](const std::pair<M, int64_t>& a, const std::pair<M, int64_t>& c) {
        return sortsBefore(a.first, c.first, descending);
      };
      const auto total = [&](const std::pair<M, int64_t>& a, const std::pair<M, int64_t>& c) {
        return before(a, c) || (!before(c, a) && a.second < c.second);
      };
      walkElements<3>(p.rows, b, e, [&](const int64_t* off) {
        if (k > 0 && k <= kScanTopK && k * 16 <= p.len) {
          // A few of a long row: one pass that keeps the best k so far in order (a later element equal to
          // the k-th is never before it), without copying the row.
          for (int64_t j = 0; j < k; ++j) row[j] = {static_cast<M>(self[off[2] + j * p.inStride]), j};
          std::sort(row.begin(), row.begin() + k, total);
          for (int64_t j = k; j < p.len; ++j) {
            const std::pair<M, int64_t> v{static_cast<M>(self[off[2] + j * p.inStride]), j};
            if (!before(v, row[k - 1])) continue;
            int64_t at = k - 1;
            while (at > 0 && before(v, row[at - 1])) {
              row[at] = row[at - 1];
              --at;
            }
            row[at] = v;
          }
        } else {
          for (int64_t j = 0; j < p.len; ++j) row[j] = {static_cast<M>(self[off[2] + j * p.inStride]), j};
        }
        if (k > 0 && k <= kScanTopK && k * 16 <= p.len) {
          // row[0 .. k) holds them already.
        } else if (k < p.len) {
          std::partial_sort(row.begin(), row.begin() + k, row.end(), total);
        } else {
          sortWholeRow(row, tmp, descending, before);
        }
        for (int64_t j = 0; j < k; ++j) {
          values[off[0] + j * p.valueStride] = static_cast<T>(row[j].first);
          indices[off[1] + j * p.indexStride] = row[j].second;
        }
      });
    });
  }

  /** The element at the rule's sorted position of each row: nth_element over (value, index) pairs. */
  template <typename T>
  static void selectRows(const OpCall& call, const SortPlan& p, SelectRule rule, int64_t k, T* values, int64_t* indices,
                         const T* self) {
    using M = OpMathType<T>;
    const int64_t grain = p.len >= 4096 ? 1 : 4096 / p.len;
    parallel_for(0, p.rows.numel, grain, [&](int64_t b, int64_t e) {
      call.checkInterrupt();
      std::vector<std::pair<M, int64_t>> row(static_cast<size_t>(p.len));
      // Ascending, NaN last, equal values in index order: the order of a stable sort.
      const auto before = [](const std::pair<M, int64_t>& a, const std::pair<M, int64_t>& c) {
        return sortsBefore(a.first, c.first, false) || (!sortsBefore(c.first, a.first, false) && a.second < c.second);
      };
      walkElements<3>(p.rows, b, e, [&](const int64_t* off) {
        int64_t present = 0;  // elements that are not NaN
        for (int64_t j = 0; j < p.len; ++j) {
          const M v = static_cast<M>(self[off[2] + j * p.inStride]);
          row[j] = {v, j};
          present += sm::isNan(v) ? 0 : 1;
        }
        int64_t pos = k - 1;
        if (rule == SelectRule::kMedian) pos = present < p.len ? present : (p.len - 1) / 2;
        if (rule == SelectRule::kNanmedian) pos = present > 0 ? (present - 1) / 2 : (p.len - 1) / 2;
        std::nth_element(row.begin(), row.begin() + pos, row.end(), before);
        values[off[0]] = static_cast<T>(row[pos].first);
        indices[off[1]] = row[pos].second;
      });
    });
  }
};

}  // namespace

#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_SORT_KERNELS(TSGPU_REGISTER_CPU, CpuSort)
TSGPU_SELECT_KERNELS(TSGPU_REGISTER_CPU, CpuSort)
#undef TSGPU_REGISTER_CPU

}  // namespace ops
}  // namespace tsgpu
