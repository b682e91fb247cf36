// The CUDA driver API, loaded at run time with dlopen so that every blocktune
// binary starts on a machine with no GPU driver; GPU-free commands work there.
#pragma once

#include <blocktune/errors.hpp>

#include <cuda.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace blocktune {

// The entry points blocktune uses. cuda.h maps each public name to its current
// versioned symbol (cuMemAlloc -> cuMemAlloc_v2); the table uses those types and
// resolves the same versioned names.
#define BLOCKTUNE_DRIVER_FUNCTIONS(X)                                                              \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount)        \
  X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetUuid) X(cuDeviceGetAttribute) X(cuDeviceTotalMem) \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxSynchronize)  \
  X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuModuleGetGlobal) X(cuFuncGetAttribute) \
  X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD)               \
  X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemsetD32) X(cuMemGetInfo) X(cuEventCreate) X(cuEventRecord) \
  X(cuEventSynchronize) X(cuEventElapsedTime) X(cuEventDestroy) X(cuStreamCreate)                  \
  X(cuStreamDestroy) X(cuStreamSynchronize) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)

class Driver {
 public:
  // The process-wide driver, loaded and initialised on first use.
  // Throws GpuUnavailable with the reason when there is none.
  static const Driver& get();
  // True when a driver with at least one device can be used; never throws.
  static bool available();
  // Why the driver is unavailable, or empty.
  static std::string unavailable_reason();

#define BLOCKTUNE_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
  BLOCKTUNE_DRIVER_FUNCTIONS(BLOCKTUNE_DECLARE_ENTRY)
#undef BLOCKTUNE_DECLARE_ENTRY

  int version = 0;  // e.g. 13000

 private:
  friend struct DriverLoader;
  Driver() = default;
};

// Turns the driver's JIT cache off for this process (CUDA_CACHE_DISABLE=1).
// NVRTC shares that cache where a driver is installed: an identical program
// then skips ptxas and `--ptxas-options=-v` reports no registers or spills.
// blocktune keeps its own variant cache. Must run before cuInit and before
// the first compile; later calls do nothing.
void disable_driver_jit_cache();

// Throws CudaError naming `what` unless `code` is CUDA_SUCCESS.
void check(CUresult code, std::string_view what);

// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
std::string describe(CUresult code);

}  // namespace blocktune
