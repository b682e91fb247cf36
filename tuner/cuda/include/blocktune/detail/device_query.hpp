// The GPUs this machine has, through the driver (dlopen'ed) and NVML. The
// CUDA layer's part of device.hpp, whose DeviceInfo and profiles are CUDA-free.
#pragma once

#include <blocktune/detail/device.hpp>

#include <string>
#include <vector>

namespace blocktune {

int device_count();                        // throws GpuUnavailable
DeviceInfo query_device(int ordinal);      // throws GpuUnavailable, std::out_of_range, CudaError
std::vector<DeviceInfo> list_devices();    // throws GpuUnavailable

// The NVIDIA driver's release, e.g. "580.159.04", through NVML; empty when NVML cannot tell.
std::string driver_release();

// The current SM clock in MHz through NVML, or 0 when NVML cannot tell.
int current_sm_clock_mhz(const DeviceInfo& device);

}  // namespace blocktune
