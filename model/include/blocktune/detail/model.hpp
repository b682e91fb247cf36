// An execution-time model for one kernel launch, without CUDA: a roofline
// over the memory levels and the instruction issue, combined softly because
// the units overlap imperfectly, plus the latency of each warp's chain of
// dependent memory rounds that the resident warps cannot hide (the MWP-CWP
// idea of Hong and Kim, ISCA 2009, reduced to what a tuner can count).
#pragma once

#include <map>
#include <vector>
#include <string>
#include <string_view>

namespace blocktune {

// What the model needs to know of a GPU. Every field has a metric name
// (device_parameter_names) under which `blocktune characterize` stores its
// measurement; missing ones come from the architecture's published figures.
struct DeviceParameters {
  int sm_count = 0;
  double sm_clock_hz = 0;
  int max_warps_per_sm = 64;
  double dram_bandwidth = 0;       // bytes/s, read + written (device-to-device copy)
  double l2_bandwidth = 0;         // bytes/s between L2 and the SMs
  double l1_bytes_per_clock = 128; // per SM: L1 load wavefronts of 128 B per clock
  double shared_bytes_per_clock = 128;  // per SM
  double issue_per_clock = 4;      // warp instructions per clock per SM (4 schedulers)
  double l1_bytes = 256 * 1024;    // L1 + shared memory per SM
  double fma_latency_cycles = 4;   // a dependent instruction of one warp
  double l1_latency_cycles = 40, shared_latency_cycles = 30, l2_latency_cycles = 263;
  double dram_latency_cycles = 600;  // under load: what a dependent round waits
  double launch_overhead_s = 4e-6;
};

// Metric names (as stored in the database) and their units.
struct ParameterMetric {
  std::string_view name, unit;
};
inline constexpr ParameterMetric kCopyBandwidth{"copy_bandwidth_gbs", "GB/s"};
inline constexpr ParameterMetric kL2Bandwidth{"l2_bandwidth_gbs", "GB/s"};
inline constexpr ParameterMetric kSharedBandwidth{"shared_bandwidth_gbs", "GB/s"};
inline constexpr ParameterMetric kL1Latency{"l1_latency_cycles", "cycles"};
inline constexpr ParameterMetric kSharedLatency{"shared_latency_cycles", "cycles"};
inline constexpr ParameterMetric kL2Latency{"l2_latency_cycles", "cycles"};
inline constexpr ParameterMetric kDramLatency{"dram_latency_cycles", "cycles"};
inline constexpr ParameterMetric kLaunchOverhead{"launch_overhead_us", "us"};
inline constexpr ParameterMetric kSmClock{"sm_clock_mhz", "MHz"};
inline constexpr ParameterMetric kFmaLatency{"fma_latency_cycles", "cycles"};

// Replaces the parameters the metrics name (as `blocktune characterize`
// stores them); the rest stay as they are.
DeviceParameters with_metrics(DeviceParameters parameters, const std::map<std::string, double, std::less<>>& metrics);

// What one launch does, counted for the whole grid.
struct KernelWork {
  double dram_bytes = 0;      // to and from DRAM
  double l2_bytes = 0;        // between L2 and the SMs (L1 misses)
  double l1_wavefronts = 0;   // 128-byte L1 load/store wavefronts
  double shared_wavefronts = 0;  // shared-memory wavefronts, bank conflicts included
  double warp_instructions = 0;
  // Each thread runs `steps` steps (a z loop's planes) of `rounds` memory
  // rounds that depend on each other (a load, then its use).
  double steps = 1, rounds = 1;
  // Further rounds of a step that wait only for L1 or shared memory (a row's
  // loads that hit, issued after the previous row's store).
  double near_rounds = 0;
  // Independent arithmetic chains of a thread's step (a sum per point it
  // computes, an accumulator per result): they overlap, so a step's
  // instructions wait for one another only chain by chain.
  double chains = 1;
  // Bytes per block the L1 must hold for the reuse the counts assume (what
  // goes through L1 beyond l2_bytes); 0: one step's share of l2_bytes, where a
  // step reuses only its own loads.
  double reuse_footprint = 0;
  // 1 where a barrier separates a block's loads from the computation on them
  // (a tile staged in shared memory, then read): the block's memory and
  // compute phases overlap only with other resident blocks' phases.
  double staged = 0;
};

// The launch: grid, block and what the occupancy rules allow per SM.
struct LaunchResources {
  double blocks = 0;
  int threads_per_block = 0;
  int blocks_per_sm = 0;
  int spill_bytes = 0;   // per thread: local-memory loads + stores ptxas reports
  // Per SM, what the carveout and the resident blocks' shared memory leave to
  // the L1 data cache; 0 where unknown, taken as enough.
  double l1_cache_bytes = 0;
};

// What the carveout (percent of the largest shared-memory share, -1 for the
// driver's choice) and `shared_in_use` bytes of shared memory per SM leave to
// the L1 data cache of one SM: the unified array less the larger of the two.
double l1_cache_bytes(const DeviceParameters& device, double largest_shared_per_sm, int carveout, double shared_in_use);

struct Prediction {
  double seconds = 0;
  // The terms, each in seconds, so the reason can be shown.
  double dram = 0, l2 = 0, l1 = 0, shared = 0, issue = 0, staging = 0, latency = 0, tail = 0;
  // The learned factor `seconds` includes (detail/residual.hpp); 1 where the
  // kernel has none. seconds / correction is the analytic model's time.
  double correction = 1;
  std::string bound() const;  // the largest term: "DRAM", "L2", "L1", "shared", "issue", "staging", "latency" or "tail"
};

Prediction predict(const DeviceParameters& device, const KernelWork& work, const LaunchResources& launch);

// The launch's waves, unrounded: its blocks over what the SMs hold at once.
double waves(const DeviceParameters& device, const LaunchResources& launch);

// The warps the launch keeps resident on an SM while its first wave runs:
// the blocks an SM holds at once, fewer where the grid has fewer per SM, times
// a block's warps (at most max_warps_per_sm); 0 for a launch that cannot run.
int resident_warps(const DeviceParameters& device, const LaunchResources& launch);

// The throughput-bound time: the soft maximum (kOverlapExponent) of the DRAM,
// L2, L1, shared-memory and issue terms.
double throughput_bound(const Prediction& prediction);

// The soft maximum of the throughput terms: units overlap, but not perfectly,
// so a kernel near two limits runs slower than at either.
inline constexpr double kOverlapExponent = 6;

// Spearman's rank correlation (ties get their mean rank).
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace blocktune
