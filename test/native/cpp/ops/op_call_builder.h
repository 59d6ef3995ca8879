// Builds OpCalls for C++ kernel tests as the binding would: views over
// std::vector storage, numbers for `#` inputs, attributes in op-list order
// with their defaults filled in.
#pragma once

#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "runtime/op_registry.h"

namespace optest {

using tsgpu::DType;
using tsgpu::TensorView;

const tsgpu::DeviceId kCpu{tsgpu::DeviceKind::kCpu, 0};

/** A contiguous cpu view of `data` with `sizes`. */
template <typename T>
TensorView view(std::vector<T>& data, std::vector<int64_t> sizes) {
  return tsgpu::contiguousView(data.data(), tsgpu::dtypeOf<T>(), kCpu, sizes.data(), static_cast<int>(sizes.size()));
}

/** A view of `data` with explicit sizes and strides (elements). */
template <typename T>
TensorView strided(std::vector<T>& data, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset = 0) {
  TensorView v = view(data, sizes);
  for (size_t d = 0; d < strides.size(); ++d) v.strides[d] = strides[d];
  v.offset = offset;
  return v;
}

/** One input: a tensor view or a number. */
struct Arg {
  TensorView v;
  bool isNumber = false;
  double number = 0;
  Arg(const TensorView& view) : v(view) {}  // NOLINT: implicit on purpose
  Arg(double n) : isNumber(true), number(n) {}  // NOLINT
  static Arg absent() { return Arg(TensorView()); }
};

/** An attribute given by name: number or string. */
struct Attr {
  std::string name;
  double d = 0;
  std::string s;
  std::vector<int64_t> ints;
  bool isString = false;
  Attr(std::string n, double v) : name(std::move(n)), d(v) {}
  Attr(std::string n, std::vector<int64_t> v) : name(std::move(n)), ints(std::move(v)) {}
  Attr(std::string n, const char* v) : name(std::move(n)), s(v), isString(true) {}
};

/** The call of op `name` with `outputs`, `inputs` and attributes (defaults for the rest). */
inline tsgpu::OpCall makeCall(const char* name, std::vector<TensorView> outputs, std::vector<Arg> inputs,
                              std::vector<Attr> attrs = {}) {
  tsgpu::OpCall call;
  const tsgpu::OpInfo* info = tsgpu::findOp(name);
  if (!info) std::abort();
  call.op = info->id;
  call.device = kCpu;
  call.outputs = std::move(outputs);
  for (const Arg& a : inputs) {
    call.inputs.push_back(a.isNumber ? TensorView() : a.v);
    tsgpu::ScalarArg s;
    s.present = a.isNumber;
    s.value = a.number;
    call.scalars.push_back(s);
  }
  for (const tsgpu::AttrSpec& spec : info->attrs) {
    tsgpu::AttrValue v;
    if (spec.hasDefault) {
      v.present = true;
      v.s = spec.defaultText;
      v.d = std::atof(spec.defaultText.c_str());
      v.i = spec.defaultText == "true" ? 1 : static_cast<int64_t>(v.d);
      if (spec.type == tsgpu::AttrType::kInts) {
        std::istringstream is(spec.defaultText == "[]" ? std::string() : spec.defaultText);
        for (int64_t x; is >> x;) v.ints.push_back(x);
      }
    }
    for (const Attr& a : attrs) {
      if (a.name != spec.name) continue;
      v.present = true;
      v.d = a.d;
      v.i = static_cast<int64_t>(a.d);
      v.s = a.s;
      v.ints = a.ints;
    }
    call.attrs.push_back(v);
  }
  return call;
}

/** Runs op `name` on cpu (through the registry, as the binding does). */
inline void run(const char* name, std::vector<TensorView> outputs, std::vector<Arg> inputs,
                std::vector<Attr> attrs = {}) {
  tsgpu::OpCall call = makeCall(name, std::move(outputs), std::move(inputs), std::move(attrs));
  tsgpu::runKernel(call);
}

}  // namespace optest
