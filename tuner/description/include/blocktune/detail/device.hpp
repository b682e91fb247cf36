// What blocktune knows of a GPU: read from the driver, or from a built-in
// architecture profile when there is no GPU (`--arch sm_90`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

struct DeviceInfo {
  int ordinal = -1;          // -1 for an architecture profile
  std::string name;          // "NVIDIA H100 80GB HBM3", or the profile's example product
  std::string uuid;          // "GPU-xxxxxxxx-...", empty for a profile
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t l2_bytes = 0;
  int shared_per_sm = 0;              // bytes, the largest carveout
  int shared_per_block = 0;           // bytes without opt-in (48 KiB)
  int shared_per_block_optin = 0;     // bytes with cuFuncSetAttribute opt-in
  int reserved_shared_per_block = 0;  // bytes the driver keeps per block (cc >= 8.0)
  int registers_per_sm = 0, registers_per_block = 0;
  int max_threads_per_block = 0, max_threads_per_sm = 0, max_blocks_per_sm = 0;
  int warp_size = 32;
  int sm_clock_mhz = 0, memory_clock_mhz = 0, memory_bus_bits = 0;
  bool ecc = false;
  int driver_version = 0;    // CUDA version the driver supports, e.g. 13000; 0 for a profile
  std::string driver_release; // the NVIDIA driver, e.g. "580.159.04", when NVML tells

  bool is_profile() const { return ordinal < 0; }
  std::string arch() const;  // "sm_90"
};

// The uuid the tuning database stores for `device`: its own, or
// "sm_90-profile" for an architecture profile (which has none).
std::string stored_uuid(const DeviceInfo& device);

// Architectures with a built-in profile: sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120.
std::vector<std::string> known_architectures();
// The profile for "sm_90" (also accepts "90", "9.0", "compute_90"); nullopt if unknown.
std::optional<DeviceInfo> arch_profile(std::string_view arch);
// Like arch_profile, but throws std::invalid_argument listing the known architectures.
DeviceInfo require_arch_profile(std::string_view arch);

// The device as one JSON object, and back (blocktune devices --json, the measurement worker).
std::string device_to_json(const DeviceInfo& device);
DeviceInfo device_from_json(std::string_view json);  // throws std::invalid_argument

}  // namespace blocktune
