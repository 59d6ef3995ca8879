// A tiny test harness: TEST(name) { CHECK(...); CHECK_EQ(a, b); }.
#pragma once

#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace harness {

struct TestCase {
  const char* name;
  std::function<void()> body;
};

std::vector<TestCase>& registry();
void fail(const char* file, int line, const std::string& message);

struct Registrar {
  Registrar(const char* name, std::function<void()> body) { registry().push_back({name, std::move(body)}); }
};

template <typename A, typename B>
void checkEq(const A& a, const B& b, const char* as, const char* bs, const char* file, int line) {
  if (!(a == b)) {
    std::ostringstream os;
    os << "CHECK_EQ(" << as << ", " << bs << ") failed: " << a << " != " << b;
    fail(file, line, os.str());
  }
}

}  // namespace harness

#define TSGPU_CAT2(a, b) a##b
#define TSGPU_CAT(a, b) TSGPU_CAT2(a, b)
#define TEST(name)                                                                      \
  static void name();                                                                   \
  static harness::Registrar TSGPU_CAT(registrar_, name)(#name, name);                   \
  static void name()
#define CHECK(cond) \
  do {              \
    if (!(cond)) harness::fail(__FILE__, __LINE__, "CHECK(" #cond ") failed"); \
  } while (0)
#define CHECK_EQ(a, b) harness::checkEq((a), (b), #a, #b, __FILE__, __LINE__)
#define CHECK_THROWS(stmt, Type, substring)                                                        \
  do {                                                                                             \
    bool thrown_ = false;                                                                          \
    try {                                                                                          \
      stmt;                                                                                        \
    } catch (const Type& e_) {                                                                     \
      thrown_ = true;                                                                              \
      if (std::string(e_.what()).find(substring) == std::string::npos)                             \
        harness::fail(__FILE__, __LINE__, std::string("message lacks '") + substring + "': " + e_.what()); \
    }                                                                                              \
    if (!thrown_) harness::fail(__FILE__, __LINE__, "expected " #Type " from " #stmt);             \
  } while (0)
