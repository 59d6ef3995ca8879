#include "core/format.h"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "base/errors.h"

namespace tsgpu {

std::string formatBytes(uint64_t size) {
  char buf[64];
  if (size <= 1024) {
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(size));
  } else if (size <= 1048576ULL) {
    std::snprintf(buf, sizeof buf, "%.2f KiB", size / 1024.0);
  } else if (size <= 1073741824ULL) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", size / 1048576.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", size / 1073741824.0);
  }
  return buf;
}

uint64_t parseByteSize(const std::string& text, const std::string& what) {
  auto fail = [&]() -> uint64_t {
    throw ArgumentError("invalid " + what + " '" + text +
                        "': expected a byte count such as 2GiB, 512MiB or 1073741824");
  };
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == start) return fail();
  double value = 0;
  try {
    value = std::stod(text.substr(start, i - start));
  } catch (...) {
    return fail();
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit;
  for (; i < text.size(); ++i) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) break;
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i != text.size()) return fail();
  double mult = 1;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kib") mult = 1024.0;
  else if (unit == "m" || unit == "mib") mult = 1048576.0;
  else if (unit == "g" || unit == "gib") mult = 1073741824.0;
  else if (unit == "t" || unit == "tib") mult = 1099511627776.0;
  else if (unit == "kb") mult = 1e3;
  else if (unit == "mb") mult = 1e6;
  else if (unit == "gb") mult = 1e9;
  else if (unit == "tb") mult = 1e12;
  else return fail();
  double bytes = value * mult;
  if (!std::isfinite(bytes) || bytes < 1 || bytes > 1.8e19) return fail();
  return static_cast<uint64_t>(std::llround(bytes));
}

}  // namespace tsgpu
