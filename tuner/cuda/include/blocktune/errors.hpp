/// @file
/// @brief The exceptions blocktune's launch API throws besides the standard ones.
#pragma once

#include <cuda.h>

#include <stdexcept>
#include <string>

namespace blocktune {

/// No usable GPU: libcuda.so.1 is missing, cuInit fails, or there is no
/// device. what() says which. Thrown by TunedKernel's constructors.
struct GpuUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A CUDA driver call that failed; what() names the call and the driver's words.
struct CudaError : std::runtime_error {
  /// Keeps `result` in #code; `message` is what() returns.
  CudaError(CUresult result, const std::string& message) : std::runtime_error(message), code(result) {}
  /// The driver's result code, e.g. CUDA_ERROR_ILLEGAL_ADDRESS.
  CUresult code;
};

}  // namespace blocktune
