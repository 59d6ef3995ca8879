// Error types shared by the runtime. Each carries a stable `code` that the
// binding copies onto the JavaScript Error it throws (err.code).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tsgpu {

/** Base error with a machine-readable code, e.g. "TSGPU_ARG". */
class Error : public std::runtime_error {
 public:
  Error(std::string code, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

/** A bad argument or configuration value (code TSGPU_ARG). */
class ArgumentError : public Error {
 public:
  explicit ArgumentError(const std::string& message) : Error("TSGPU_ARG", message) {}
};

/**
 * The caching allocator could not satisfy a request even after freeing its
 * cache and collecting garbage (code TSGPU_OOM). Carries the numbers that
 * the message quotes so callers can show them in other ways.
 */
class OutOfMemoryError : public Error {
 public:
  OutOfMemoryError(const std::string& message, std::string device, uint64_t requested,
                   uint64_t totalBytes, uint64_t freeBytes, uint64_t allocated,
                   uint64_t reservedUnallocated)
      : Error("TSGPU_OOM", message),
        device(std::move(device)),
        requested(requested),
        totalBytes(totalBytes),
        freeBytes(freeBytes),
        allocated(allocated),
        reservedUnallocated(reservedUnallocated) {}
  std::string device;            // "cpu", "cuda:0", ...
  uint64_t requested;            // bytes asked for (before rounding)
  uint64_t totalBytes;           // device capacity (or configured limit)
  uint64_t freeBytes;            // what the device reported free at the failure
  uint64_t allocated;            // bytes held by live tensors on the device
  uint64_t reservedUnallocated;  // cached bytes that could not serve the request
};

}  // namespace tsgpu

namespace tsgpu {

/** A long op stopped because the user interrupted the cell (code TSGPU_INTERRUPTED). */
class InterruptedError : public Error {
 public:
  explicit InterruptedError(const std::string& message) : Error("TSGPU_INTERRUPTED", message) {}
};

}  // namespace tsgpu
