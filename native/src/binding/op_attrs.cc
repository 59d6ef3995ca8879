// The attributes of an op call (binding/op_attrs.h): defaults parsed once
// from the op list, and the values JavaScript gives, checked and converted.
#include "binding/op_attrs.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "base/errors.h"

namespace tsgpu {
namespace binding {

namespace {

AttrValue parseDefault(const AttrSpec& spec) {
  AttrValue v;
  v.present = spec.hasDefault;
  if (!spec.hasDefault) return v;
  const std::string& t = spec.defaultText;
  switch (spec.type) {
    case AttrType::kDouble: v.d = t == "inf" ? INFINITY : (t == "-inf" ? -INFINITY : std::strtod(t.c_str(), nullptr)); break;
    case AttrType::kInt: v.i = std::strtoll(t.c_str(), nullptr, 10); v.d = static_cast<double>(v.i); break;
    case AttrType::kBool: v.i = t == "true" ? 1 : 0; v.d = static_cast<double>(v.i); break;
    case AttrType::kString: v.s = t; break;
    case AttrType::kInts: {
      std::istringstream in(t == "[]" ? std::string() : t);
      std::string item;
      while (std::getline(in, item, ' '))
        if (!item.empty()) v.ints.push_back(std::strtoll(item.c_str(), nullptr, 10));
      break;
    }
  }
  return v;
}

const char* typeName(AttrType t) {
  switch (t) {
    case AttrType::kDouble: return "a number";
    case AttrType::kInt: return "an integer";
    case AttrType::kBool: return "a boolean";
    case AttrType::kString: return "a string";
    case AttrType::kInts: return "an integer or an array of integers";
  }
  return "a value";
}

std::string describe(const Napi::Value& v) {
  if (v.IsString()) return "'" + v.As<Napi::String>().Utf8Value() + "'";
  if (v.IsNumber() || v.IsBoolean()) return v.ToString().Utf8Value();
  if (v.IsArray()) return "an array";
  if (v.IsNull()) return "null";
  return "an object";
}

}  // namespace

const std::vector<AttrValue>& defaultsOf(OpId op) {
  static std::vector<std::vector<AttrValue>> all = [] {
    std::vector<std::vector<AttrValue>> r(kNumOps);
    for (int i = 0; i < kNumOps; ++i)
      for (const AttrSpec& a : opInfo(static_cast<OpId>(i)).attrs) r[i].push_back(parseDefault(a));
    return r;
  }();
  return all[static_cast<size_t>(op)];
}

void readAttr(const OpInfo& info, size_t k, const Napi::Value& v, AttrValue& out) {
  const AttrSpec& spec = info.attrs[k];
  auto bad = [&]() {
    throw ArgumentError(std::string(info.name) + ": expected " + typeName(spec.type) + " for " + spec.name + ", got " +
                        describe(v));
  };
  out.present = true;
  switch (spec.type) {
    case AttrType::kDouble:
      if (v.IsNumber()) out.d = v.As<Napi::Number>().DoubleValue();
      else if (v.IsBoolean()) out.d = v.As<Napi::Boolean>().Value() ? 1 : 0;
      else bad();
      break;
    case AttrType::kInt:
      if (!v.IsNumber() || !integral(v.As<Napi::Number>().DoubleValue())) bad();
      out.d = v.As<Napi::Number>().DoubleValue();
      out.i = static_cast<int64_t>(out.d);
      break;
    case AttrType::kBool:
      if (!v.IsBoolean()) bad();
      out.i = v.As<Napi::Boolean>().Value() ? 1 : 0;
      out.d = static_cast<double>(out.i);
      break;
    case AttrType::kString:
      if (!v.IsString()) bad();
      out.s = v.As<Napi::String>().Utf8Value();
      break;
    case AttrType::kInts:
      out.ints.clear();
      if (v.IsNumber()) {
        if (!integral(v.As<Napi::Number>().DoubleValue())) bad();
        out.ints.push_back(static_cast<int64_t>(v.As<Napi::Number>().DoubleValue()));
      } else if (v.IsArray()) {
        Napi::Array a = v.As<Napi::Array>();
        for (uint32_t j = 0; j < a.Length(); ++j) {
          Napi::Value e = a.Get(j);
          if (!e.IsNumber() || !integral(e.As<Napi::Number>().DoubleValue())) bad();
          out.ints.push_back(static_cast<int64_t>(e.As<Napi::Number>().DoubleValue()));
        }
      } else {
        bad();
      }
      break;
  }
}

}  // namespace binding
}  // namespace tsgpu
