// CUDA device backend. This header is plain C++ (no CUDA headers) so that
// the registry and the binding can use it; cuda_backend.cu implements it and
// is compiled only when nvcc is available (TSGPU_WITH_CUDA).
#pragma once

#include <memory>
#include <string>

#include "core/backend.h"
#include "base/errors.h"

namespace tsgpu {

/**
 * A failed CUDA runtime call (code TSGPU_CUDA). Carries the statement that
 * failed and where, so that reports point at the call.
 */
class CudaError : public Error {
 public:
  CudaError(const std::string& errorName, const std::string& errorString, const std::string& statement,
            const std::string& file, int line)
      : Error("TSGPU_CUDA", "CUDA error " + errorName + ": " + errorString + " (in " + statement + " at " + file +
                                ":" + std::to_string(line) + ")"),
        errorName(errorName),
        statement(statement),
        file(file),
        line(line) {}
  std::string errorName;  // e.g. "cudaErrorInvalidValue"
  std::string statement;  // the call that failed, as written
  std::string file;       // source file of the call
  int line;               // source line of the call
};

/** Whether CUDA can be used, how many devices there are, and why not. */
struct CudaAvailability {
  bool compiled = false;   // built with the CUDA backend
  bool available = false;  // compiled and at least one device usable
  int deviceCount = 0;
  std::string reason;      // why it is unavailable ("" when available)
};

/** Probes once (cudaGetDeviceCount) and caches the answer. Never throws. */
const CudaAvailability& cudaAvailability();

/** Creates the backend for device `index`; throws CudaError. */
std::unique_ptr<Backend> makeCudaBackend(int index);

}  // namespace tsgpu
