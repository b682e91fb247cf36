// Occupancy on the CPU through the toolkit's cuda_occupancy.h: the same rules
// the driver applies, for real devices and architecture profiles alike.
#pragma once

#include <blocktune/detail/device.hpp>

#include <string>
#include <vector>

namespace blocktune {

struct OccupancyQuery {
  int block_threads = 0;
  int registers = 0;      // per thread, as ptxas reports
  int static_smem = 0;    // bytes
  int dynamic_smem = 0;   // bytes
  int carveout = -1;      // preferred shared-memory carveout in percent, -1 = driver default
  int barriers = 1;       // named barriers the kernel uses
  // The function's dynamic shared-memory limit attribute; -1 = what the
  // launcher sets (raised to dynamic_smem only when the default is too small).
  int max_dynamic_smem = -1;
};

struct Occupancy {
  int blocks_per_sm = 0;
  int active_warps = 0;
  int max_warps = 0;
  double fraction = 0;              // active warps / max warps per SM
  unsigned limits = 0;              // cudaOccLimitingFactor bits
  int allocated_smem_per_block = 0; // bytes, with the driver's reservation and granularity
  int smem_per_sm = 0;              // bytes of the carveout the SM runs with
  std::string invalid;              // why no block fits, or empty

  // What limits occupancy, in words: "registers", "shared memory and warps", ...
  std::string limiting_factor() const;
};

Occupancy compute_occupancy(const DeviceInfo& device, const OccupancyQuery& query);

// The carveout percentages that give distinct shared-memory sizes per SM on
// this device, smallest first (on cc 9.0: 0 -> 0 KiB ... 100 -> 228 KiB).
std::vector<int> carveout_steps(const DeviceInfo& device);

// Shared memory per SM, in bytes, that a carveout preference selects.
int carveout_bytes(const DeviceInfo& device, int carveout);

}  // namespace blocktune
