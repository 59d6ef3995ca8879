// Runs every registered test; exit status 0 only if all pass.
#include <cstring>

#include "harness.h"

namespace harness {

namespace {
int gFailures = 0;
}

std::vector<TestCase>& registry() {
  static std::vector<TestCase> tests;
  return tests;
}

void fail(const char* file, int line, const std::string& message) {
  ++gFailures;
  std::cerr << "  " << file << ":" << line << ": " << message << "\n";
}

}  // namespace harness

int main(int argc, char** argv) {
  const char* filter = argc > 1 ? argv[1] : nullptr;
  int ran = 0, failedTests = 0;
  for (const auto& t : harness::registry()) {
    if (filter && std::strstr(t.name, filter) == nullptr) continue;
    int before = harness::gFailures;
    try {
      t.body();
    } catch (const std::exception& e) {
      harness::fail(__FILE__, __LINE__, std::string("uncaught exception: ") + e.what());
    }
    ++ran;
    bool ok = harness::gFailures == before;
    if (!ok) ++failedTests;
    std::cout << (ok ? "[ OK ] " : "[FAIL] ") << t.name << "\n";
  }
  std::cout << ran - failedTests << "/" << ran << " tests passed\n";
  return failedTests == 0 ? 0 : 1;
}
