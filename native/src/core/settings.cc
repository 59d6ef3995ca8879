#include "core/settings.h"

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "base/errors.h"

namespace tsgpu {

namespace {

constexpr size_t kMiB = 1ULL << 20;
constexpr size_t kLargeBufferMiB = 20;  // kLargeBuffer (20 MiB) in MiB

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

bool isPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

size_t log2Floor(uint64_t v) {
  size_t r = 0;
  while (v >>= 1) ++r;
  return r;
}

[[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& why) {
  throw ArgumentError("invalid allocator setting " + key + ":" + value + " (" + why + ")");
}

uint64_t parseUnsigned(const std::string& key, const std::string& value) {
  if (value.empty()) bad(key, value, "expected a non-negative integer");
  for (char c : value)
    if (!std::isdigit(static_cast<unsigned char>(c))) bad(key, value, "expected a non-negative integer");
  errno = 0;
  unsigned long long v = std::strtoull(value.c_str(), nullptr, 10);
  if (errno != 0) bad(key, value, "number out of range");
  return v;
}

// Splits on commas that are not inside [...].
std::vector<std::string> splitTopLevel(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

void parseRoundup(const std::string& key, const std::string& value, AllocatorSettings& s) {
  if (!value.empty() && value.front() == '[') {
    if (value.back() != ']') bad(key, value, "missing ']'");
    std::string body = value.substr(1, value.size() - 2);
    std::vector<std::string> items = splitTopLevel(body);
    // As in PyTorch: "S:D" gives D divisions to every interval below S MiB
    // not covered by an earlier pair; ">:D" covers all the remaining ones.
    size_t lastIndex = 0;
    for (const std::string& raw : items) {
      std::string item = trim(raw);
      size_t colon = item.find(':');
      if (colon == std::string::npos) bad(key, value, "expected size:divisions pairs");
      std::string k = trim(item.substr(0, colon));
      uint64_t divisions = parseUnsigned(key, trim(item.substr(colon + 1)));
      if (divisions != 0 && !isPowerOfTwo(divisions))
        bad(key, value, "divisions must be a power of 2 or 0");
      if (k == ">") {
        for (size_t i = lastIndex; i < kRoundUpPowerOfTwoIntervals; ++i) s.roundupPower2Divisions[i] = divisions;
        continue;
      }
      uint64_t mb = parseUnsigned(key, k);
      if (!isPowerOfTwo(mb)) bad(key, value, "interval sizes must be powers of 2 (MiB)");
      size_t index = log2Floor(mb);
      if (index > kRoundUpPowerOfTwoIntervals - 1) index = kRoundUpPowerOfTwoIntervals - 1;
      if (index < lastIndex) bad(key, value, "interval sizes must increase");
      for (size_t i = lastIndex; i < index; ++i) s.roundupPower2Divisions[i] = divisions;
      lastIndex = index;
    }
    return;
  }
  uint64_t divisions = parseUnsigned(key, value);
  if (divisions != 0 && !isPowerOfTwo(divisions)) bad(key, value, "divisions must be a power of 2");
  s.roundupPower2Divisions.fill(divisions);
}

}  // namespace

size_t AllocatorSettings::divisionsFor(size_t size) const {
  size_t logSize = log2Floor(size);
  const size_t start = log2Floor(kRoundUpPowerOfTwoStartBytes);
  size_t index = logSize > start ? logSize - start : 0;
  if (index > kRoundUpPowerOfTwoIntervals - 1) index = kRoundUpPowerOfTwoIntervals - 1;
  return roundupPower2Divisions[index];
}

AllocatorSettings parseAllocatorSettings(const std::string& config, const AllocatorSettings& base) {
  AllocatorSettings s = base;
  for (const std::string& raw : splitTopLevel(config)) {
    std::string item = trim(raw);
    if (item.empty()) continue;
    size_t colon = item.find(':');
    if (colon == std::string::npos)
      throw ArgumentError("invalid allocator setting '" + item + "': expected key:value");
    std::string key = trim(item.substr(0, colon));
    std::string value = trim(item.substr(colon + 1));
    if (key == "max_split_size_mb") {
      uint64_t mb = parseUnsigned(key, value);
      if (mb <= kLargeBufferMiB)
        bad(key, value, "max_split_size_mb too small, must be > " + std::to_string(kLargeBufferMiB));
      if (mb > std::numeric_limits<size_t>::max() / kMiB) mb = std::numeric_limits<size_t>::max() / kMiB;
      s.maxSplitSizeBytes = static_cast<size_t>(mb) * kMiB;
    } else if (key == "roundup_power2_divisions") {
      parseRoundup(key, value, s);
    } else if (key == "garbage_collection_threshold") {
      char* end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (value.empty() || end == nullptr || *end != '\0') bad(key, value, "expected a number");
      if (!(v > 0.0 && v < 1.0)) bad(key, value, "must be between 0.0 and 1.0, exclusive");
      s.garbageCollectionThreshold = v;
    } else if (key == "expandable_segments") {
      if (value == "True" || value == "true" || value == "1") s.expandableSegments = true;
      else if (value == "False" || value == "false" || value == "0") s.expandableSegments = false;
      else bad(key, value, "expected True or False");
    } else if (key == "reclaim_idle_segments") {
      if (value == "True" || value == "true" || value == "1") s.reclaimIdleSegments = true;
      else if (value == "False" || value == "false" || value == "0") s.reclaimIdleSegments = false;
      else bad(key, value, "expected True or False");
    } else {
      throw ArgumentError("unknown allocator setting '" + key +
                          "' (accepted: max_split_size_mb, roundup_power2_divisions, "
                          "garbage_collection_threshold, expandable_segments, reclaim_idle_segments)");
    }
  }
  return s;
}

std::string formatAllocatorSettings(const AllocatorSettings& s) {
  std::ostringstream os;
  if (s.maxSplitSizeBytes == std::numeric_limits<size_t>::max()) os << "max_split_size_mb:unlimited";
  else os << "max_split_size_mb:" << s.maxSplitSizeBytes / kMiB;
  bool uniform = true;
  for (size_t d : s.roundupPower2Divisions) uniform = uniform && d == s.roundupPower2Divisions[0];
  if (uniform) {
    os << ",roundup_power2_divisions:" << s.roundupPower2Divisions[0];
  } else {
    // Same form as the input: "S:D" covers the intervals below S MiB.
    os << ",roundup_power2_divisions:[";
    for (size_t i = 0; i + 1 < kRoundUpPowerOfTwoIntervals; ++i) os << (2ULL << i) << ":" << s.roundupPower2Divisions[i] << ",";
    os << ">:" << s.roundupPower2Divisions[kRoundUpPowerOfTwoIntervals - 1] << "]";
  }
  os << ",garbage_collection_threshold:" << s.garbageCollectionThreshold
     << ",expandable_segments:" << (s.expandableSegments ? "True" : "False")
     << ",reclaim_idle_segments:" << (s.reclaimIdleSegments ? "True" : "False");
  return os.str();
}

}  // namespace tsgpu
